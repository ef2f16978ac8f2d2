import os from 'node:os';
import { WorkspaceError } from '@agent-workspace/core';
import {
  clientPathSchema,
  FILE_BROWSER_ROUTES,
  homeResponseWireSchema,
  MAX_HOME_FAVORITES,
  MAX_SUBDIRS_PAGE_ID_CHARS,
  MAX_SUBDIRS_PAGE_LIMIT,
  MAX_SUBDIRS_SCANNED_ENTRIES,
  SUBDIRS_TRUNCATED_HEADER,
  SUCCESS,
  subdirectoryPageWireSchema,
  successSchema,
} from '@agent-workspace/protocol';
import contentDisposition from 'content-disposition';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../app/http-error.js';
import { requireAbsolutePath } from '../app/require-absolute-path.js';
import type { ServerContext } from '../app/server-context.js';
import { streamTrajectoryZip } from '../conversations/stream-trajectory-zip.js';
import { createServerDirectory } from '../files/create-server-directory.js';
import { listSubdirectories } from '../files/list-subdirectories.js';
import { directoryHttpError, refusalHttpError } from './directory-http-error.js';

const includeHiddenSchema = z
  .stringbool()
  .default(false)
  .describe("Include hidden directories (names starting with '.')");

const createDirectoryQuery = z.object({
  path: clientPathSchema.describe('Absolute directory path to create'),
});

const homeQuery = z.object({ include_hidden: includeHiddenSchema });

const searchSubdirsQuery = z.object({
  path: clientPathSchema.describe('Absolute directory path to list subdirectories of'),
  page_id: z
    .string()
    .max(MAX_SUBDIRS_PAGE_ID_CHARS)
    .refine((value) => !value.includes('\0'), 'page_id must not contain NUL bytes')
    .optional()
    .describe('Optional next_page_id from the previously returned page'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_SUBDIRS_PAGE_LIMIT)
    .default(MAX_SUBDIRS_PAGE_LIMIT)
    .describe('The max number of results in the page'),
  include_hidden: includeHiddenSchema,
});

/** A UUID as Python's `UUID` reads it in a path: dashed or 32 hex digits, any case. */
const trajectoryParams = z.object({
  conversation_id: z
    .string()
    .regex(/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i, 'Invalid UUID'),
});

/**
 * Registers OpenHands' 2026 file-browser routes (`FILE_BROWSER_ROUTES` in
 * `@agent-workspace/protocol`) with OpenHands' parameters, models and errors. Every path goes
 * through the server's path walker (`context.paths`: race-free, links never followed out of the
 * confinement, 403 outside it); listings read the opened directory and skip links. The
 * trajectory zip streams the conversation's persisted files with secrets redacted.
 */
export function registerFileBrowserRoutes(scope: FastifyInstance, context: ServerContext): void {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const tags = ['Files'];

  app.post(
    FILE_BROWSER_ROUTES.createDirectory,
    { schema: { tags, querystring: createDirectoryQuery, response: { 200: successSchema } } },
    async (request) => {
      context.touch();
      const input = requireAbsolutePath(request.query.path);
      try {
        createServerDirectory(context.paths, input, 'path');
      } catch (error) {
        throw createDirectoryHttpError(error);
      }
      return SUCCESS;
    },
  );

  app.get(
    FILE_BROWSER_ROUTES.home,
    { schema: { tags, querystring: homeQuery, response: { 200: homeResponseWireSchema } } },
    async (request) => {
      const home = homeDirectory(context);
      let favorites: { label: string; path: string }[] = [];
      try {
        const { entries } = listSubdirectories({
          paths: context.paths,
          input: home,
          field: 'home',
          includeHidden: request.query.include_hidden,
          maxScanned: MAX_SUBDIRS_SCANNED_ENTRIES,
        });
        favorites = entries
          .slice(0, MAX_HOME_FAVORITES)
          .map((entry) => ({ label: entry.name, path: entry.path }));
      } catch {
        // A home that is missing, unreadable or refused has no favorites (as in OpenHands).
      }
      const { workingDir } = context.options;
      const locations = context.paths.confine
        ? [{ label: workingDir, path: workingDir }]
        : [{ label: '/', path: '/' }];
      return { home, favorites, locations };
    },
  );

  app.get(
    FILE_BROWSER_ROUTES.searchSubdirs,
    {
      schema: {
        tags,
        querystring: searchSubdirsQuery,
        response: { 200: subdirectoryPageWireSchema },
      },
    },
    async (request, reply) => {
      const { limit, page_id: pageId } = request.query;
      const input = requireAbsolutePath(request.query.path);
      let listing: ReturnType<typeof listSubdirectories>;
      try {
        listing = listSubdirectories({
          paths: context.paths,
          input,
          field: 'path',
          includeHidden: request.query.include_hidden,
          maxScanned: MAX_SUBDIRS_SCANNED_ENTRIES,
        });
      } catch (error) {
        throw directoryHttpError(error, input);
      }
      const { entries } = listing;
      // Resumes at the first name not before `page_id`, so a page whose first entry was removed
      // meanwhile goes on where it was (OpenHands would start over).
      const start = pageId
        ? entries.findIndex((entry) => entry.name.toLowerCase() >= pageId.toLowerCase())
        : 0;
      const from = start === -1 ? entries.length : start;
      const items = entries.slice(from, from + limit);
      const next = entries[from + limit];
      if (listing.truncated) reply.header(SUBDIRS_TRUNCATED_HEADER, 'true');
      return { items, next_page_id: next ? next.name.toLowerCase() : null };
    },
  );

  app.get(
    FILE_BROWSER_ROUTES.downloadTrajectory,
    { schema: { tags, params: trajectoryParams } },
    async (request, reply) => {
      const service = context.conversations;
      await service.ready();
      context.touch();
      const hex = request.params.conversation_id.replaceAll('-', '').toLowerCase();
      const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
      const dir = service.get(id)?.dir;
      if (dir === undefined) throw new HttpError(404, 'Conversation not found');
      let stream: ReturnType<typeof streamTrajectoryZip>;
      try {
        stream = streamTrajectoryZip({
          dir,
          rootName: hex,
          // Conversation secrets are masked as events are recorded; this catches older text.
          knownSecrets: [
            ...context.options.sessionApiKeys,
            ...(service.get(id)?.secrets?.masker.forms() ?? []),
          ],
          signal: context.shutdownSignal,
        });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') {
          throw new HttpError(404, 'Conversation not found');
        }
        throw error;
      }
      return reply
        .type('application/octet-stream')
        .header('content-disposition', contentDisposition(`${hex}.zip`))
        .send(stream);
    },
  );
}

/**
 * The home directory the file browser starts at: the server user's home, or the working
 * directory when the server is confined and the home lies outside it.
 */
function homeDirectory(context: ServerContext): string {
  const home = os.homedir();
  if (!context.paths.confine) return home;
  const { workingDir } = context.options;
  const roots = [workingDir, context.paths.rootRealPath];
  return roots.some((root) => home === root || home.startsWith(`${root}/`)) ? home : workingDir;
}

/** OpenHands' answers of `create_directory`: 400 `Path exists and is not a directory`, 403. */
function createDirectoryHttpError(error: unknown): unknown {
  if (!WorkspaceError.isInstance(error)) return error;
  const { reason } = error.details;
  if (reason === 'not-directory' || reason === 'parent-not-directory') {
    return new HttpError(400, 'Path exists and is not a directory');
  }
  return refusalHttpError(error);
}
