import path from 'node:path';
import {
  AGENT_SERVER_ROUTES,
  clientPathSchema,
  DIRECTORY_ARCHIVE_MEDIA_TYPE,
  directoryArchiveSummaryWireSchema,
} from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../app/http-error.js';
import type { ServerContext } from '../app/server-context.js';
import { extractDirectoryArchive } from '../files/extract-directory-archive.js';
import { packDirectoryArchive } from '../files/pack-directory-archive.js';

const pathQuerySchema = z.object({
  path: clientPathSchema.describe('Absolute directory path'),
});

/** Documents the raw tar body, which the route reads as a stream (no schema parses it). */
const tarBody: typeof jsonSchemaTransform = (input) => {
  const { schema, url } = jsonSchemaTransform(input);
  const body = { type: 'string', format: 'binary' };
  return { url, schema: { ...schema, consumes: [DIRECTORY_ARCHIVE_MEDIA_TYPE], body } };
};

/**
 * Registers our directory-archive extension (`DIRECTORY_ARCHIVE_CAPABILITY`):
 * `GET /api/workspace/directory_archive?path=<dir>` streams the directory as a tar, and `POST` with an
 * `application/x-tar` body extracts it into the directory (created when missing), answering a
 * `DirectoryArchiveSummary`. Paths are absolute (400) and walked race-free through
 * `context.paths` (403 outside confinement). Extraction is capped at `maxArchiveEntries`
 * entries and `maxUploadBytes` bytes of content (413 naming the entry); see
 * `extractDirectoryArchive` and `packDirectoryArchive` for the rest.
 */
export function registerArchiveRoutes(scope: FastifyInstance, context: ServerContext): void {
  // Its own scope: the tar body parser (which leaves the body unread) applies to these routes.
  scope.register(async (archiveScope) => {
    archiveScope.addContentTypeParser(DIRECTORY_ARCHIVE_MEDIA_TYPE, (_request, _body, done) =>
      done(null, undefined),
    );
    const app = archiveScope.withTypeProvider<ZodTypeProvider>();
    const tags = ['Files'];
    const absolute = (input: string): string => {
      if (!path.isAbsolute(input)) throw new HttpError(400, 'Path must be absolute');
      return input;
    };

    app.get(
      AGENT_SERVER_ROUTES.directoryArchive,
      { schema: { tags, querystring: pathQuerySchema } },
      async (request, reply) => {
        context.touch();
        const input = absolute(request.query.path);
        const stream = packDirectoryArchive(context.paths, input, context.shutdownSignal);
        return reply.type(DIRECTORY_ARCHIVE_MEDIA_TYPE).send(stream);
      },
    );

    app.post(
      AGENT_SERVER_ROUTES.directoryArchive,
      {
        schema: {
          tags,
          querystring: pathQuerySchema,
          response: { 200: directoryArchiveSummaryWireSchema },
        },
        config: { swaggerTransform: tarBody },
      },
      async (request) => {
        context.touch();
        const input = absolute(request.query.path);
        const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
        if (type !== DIRECTORY_ARCHIVE_MEDIA_TYPE) {
          throw new HttpError(415, `Content-Type must be ${DIRECTORY_ARCHIVE_MEDIA_TYPE}`);
        }
        const { maxArchiveEntries, maxUploadBytes } = context.options;
        return context.track(
          extractDirectoryArchive({
            request,
            paths: context.paths,
            input,
            maxEntries: maxArchiveEntries,
            maxBytes: maxUploadBytes,
            signal: context.shutdownSignal,
            onTemporaryFile: (event, file) => context.runtime.temporaryFile(event, file),
          }),
        );
      },
    );
  });
}
