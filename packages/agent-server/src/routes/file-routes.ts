import path from 'node:path';
import { SUCCESS, successSchema } from '@agent-workspace/protocol';
import contentDisposition from 'content-disposition';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../app/http-error.js';
import type { ServerContext } from '../app/server-context.js';
import { inspectUploadDestination } from '../files/inspect-upload-destination.js';
import { openDownload } from '../files/open-download.js';
import { receiveUpload } from '../files/receive-upload.js';

const pathQuerySchema = z.object({
  path: z.string().describe('Absolute file path'),
});

/** Documents the multipart body, which the multipart plugin (not a schema) parses. */
const multipartFileBody: typeof jsonSchemaTransform = (input) => {
  const { schema, url } = jsonSchemaTransform(input);
  const body = {
    type: 'object',
    required: ['file'],
    properties: { file: { type: 'string', format: 'binary' } },
  };
  return { url, schema: { ...schema, consumes: ['multipart/form-data'], body } };
};

/**
 * Registers OpenHands' `POST /api/file/upload` and `GET /api/file/download`. The `path` must be
 * absolute (400 `Path must be absolute`, as in OpenHands) and goes through
 * `context.resolvePath`, so confinement gives 403. Both stream (memory stays flat) and count as
 * activity for `idle_time`; uploads are atomic and capped at `maxUploadBytes` (413).
 */
export function registerFileRoutes(scope: FastifyInstance, context: ServerContext): void {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const tags = ['Files'];

  /** The confined absolute path the client named. */
  const absolutePath = async (input: string): Promise<string> => {
    if (!path.isAbsolute(input)) throw new HttpError(400, 'Path must be absolute');
    return context.resolvePath(input, 'path');
  };

  app.post(
    '/api/file/upload',
    {
      schema: { tags, querystring: pathQuerySchema, response: { 200: successSchema } },
      config: { swaggerTransform: multipartFileBody },
    },
    async (request, reply) => {
      context.touch();
      // Fails before reading the body, which Node then discards.
      const destination = await inspectUploadDestination(await absolutePath(request.query.path));
      try {
        const { maxUploadBytes } = context.options;
        await receiveUpload({ request, destination, maxUploadBytes });
        return SUCCESS;
      } catch (error) {
        // Parsing stopped midway: the rest of the body will not be read, so end the connection.
        if (!request.raw.complete) reply.header('connection', 'close');
        throw error;
      }
    },
  );

  app.get(
    '/api/file/download',
    { schema: { tags, querystring: pathQuerySchema } },
    async (request, reply) => {
      context.touch();
      const source = await absolutePath(request.query.path);
      const { stream, size } = await openDownload(source);
      return reply
        .type('application/octet-stream')
        .header('content-disposition', contentDisposition(path.basename(source)))
        .header('content-length', size)
        .send(stream);
    },
  );
}
