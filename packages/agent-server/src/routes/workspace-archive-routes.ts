import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import {
  type DirectoryHandle,
  openDirectory,
  PROC_FD_WALKS,
  streamGitDelta,
} from '@agent-workspace/core/internal';
import {
  AGENT_SERVER_ROUTES,
  clientPathSchema,
  MAX_WORKSPACE_ARCHIVE_BASE_REF_LENGTH,
  MAX_WORKSPACE_ARCHIVE_EXCLUDE_LENGTH,
  MAX_WORKSPACE_ARCHIVE_EXCLUDES,
  WORKSPACE_ARCHIVE_DEFAULT_EXCLUDES,
  WORKSPACE_ARCHIVE_FORMATS,
  WORKSPACE_ARCHIVE_MEDIA_TYPES,
  WORKSPACE_ARCHIVE_SUFFIXES,
} from '@agent-workspace/protocol';
import contentDisposition from 'content-disposition';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../app/http-error.js';
import type { ServerContext } from '../app/server-context.js';
import { archiveRepositoryHeaders } from '../archive/archive-repository-headers.js';
import { findArchiveRepository, hasGitEntry } from '../archive/find-archive-repository.js';
import { streamArchiveTarGz } from '../archive/stream-archive-tar-gz.js';
import { pathHttpError } from '../files/path-http-error.js';

const excludeSchema = z
  .string()
  .max(MAX_WORKSPACE_ARCHIVE_EXCLUDE_LENGTH)
  .refine((glob) => !glob.includes('\0'), 'must not contain NUL bytes');

const archiveQuerySchema = z.object({
  path: clientPathSchema.describe('Absolute path of the directory to archive'),
  format: z
    .enum(WORKSPACE_ARCHIVE_FORMATS)
    .default('git-delta')
    .describe("'git-delta': a git patch of the working tree; 'tar.gz': the whole directory"),
  base_ref: z
    .string()
    .min(1)
    .max(MAX_WORKSPACE_ARCHIVE_BASE_REF_LENGTH)
    .optional()
    .describe('git-delta only: the base to diff against (default: auto-detected)'),
  use_default_excludes: z
    .stringbool()
    .default(true)
    .describe('Apply the built-in excludes (node_modules/, .venv/, caches, build outputs, .git/)'),
  exclude: z
    .union([excludeSchema, z.array(excludeSchema).max(MAX_WORKSPACE_ARCHIVE_EXCLUDES)])
    .optional()
    .describe('Further glob patterns to exclude (repeatable)'),
});

/**
 * Registers OpenHands' workspace archive, `GET /api/file/archive` (see
 * `WORKSPACE_ARCHIVE_FORMATS` in `@agent-workspace/protocol` for the parameters and answers):
 * the directory is opened race-free through `context.paths` (403 outside confinement), the
 * `tar.gz` format streams as it is read (never built whole), and the excludes, the manifest and
 * the git internals follow OpenHands; `git-delta` streams git's patch (core's
 * `streamGitDelta`) with `X-Archive-Base-Commit` and `X-Archive-Base-Ref` when the base is a
 * commit. Query limits (`MAX_WORKSPACE_ARCHIVE_*`) answer 422
 * naming the field, a `base_ref` starting with `-` 400.
 */
export function registerWorkspaceArchiveRoutes(scope: FastifyInstance, context: ServerContext) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.get(
    AGENT_SERVER_ROUTES.fileArchive,
    { schema: { tags: ['Files'], querystring: archiveQuerySchema } },
    async (request, reply) => {
      context.touch();
      const query = request.query;
      if (!path.isAbsolute(query.path)) throw new HttpError(400, 'Path must be absolute');
      if (query.base_ref?.startsWith('-')) {
        throw new HttpError(400, "base_ref must not start with '-'");
      }
      const requested = typeof query.exclude === 'string' ? [query.exclude] : query.exclude;
      const excludes = [
        ...(query.use_default_excludes ? WORKSPACE_ARCHIVE_DEFAULT_EXCLUDES : []),
        ...(requested ?? []),
      ];
      const directory = openArchiveDirectory(context, query.path);
      let target: DirectoryHandle;
      try {
        target = findArchiveRepository(directory);
      } finally {
        directory.close();
      }
      try {
        const source = path.basename(target.realPath()) || 'root';
        if (hasGitEntry(target)) reply.headers(await repositoryHeaders(context, target));
        if (query.format === 'git-delta') {
          const delta = await gitDelta(context, target, query.base_ref, excludes);
          if (delta.baseCommit !== undefined) {
            reply.header('x-archive-base-commit', delta.baseCommit);
            reply.header('x-archive-base-ref', headerSafe(query.base_ref ?? 'auto'));
          }
          return reply
            .type(WORKSPACE_ARCHIVE_MEDIA_TYPES[query.format])
            .header('content-disposition', contentDisposition(`${source}.patch`))
            .send(delta.patch);
        }
        const stream = streamArchiveTarGz({
          directory: target,
          source,
          excludes,
          walker: context.paths,
          signal: context.shutdownSignal,
          onManifestCollision: () =>
            request.log.warn(
              `${source} has its own archive manifest; the synthetic one is left out`,
            ),
        });
        return reply
          .type(WORKSPACE_ARCHIVE_MEDIA_TYPES[query.format])
          .header(
            'content-disposition',
            contentDisposition(`${source}${WORKSPACE_ARCHIVE_SUFFIXES[query.format]}`),
          )
          .send(stream);
      } finally {
        target.close();
      }
    },
  );
}

/**
 * Starts the git-delta patch of `directory`: git runs in the command sandbox when the server has
 * one (its scratch a private one of the sandbox's), in the open directory itself otherwise
 * (Linux), confined like the git routes. Not a repository and an unresolvable `base_ref` are
 * 400, other git failures 500.
 */
async function gitDelta(
  context: ServerContext,
  directory: DirectoryHandle,
  baseRef: string | undefined,
  excludes: readonly string[],
) {
  try {
    return await streamGitDelta({
      cwd: workPath(context, directory),
      baseRef,
      excludes,
      signal: context.shutdownSignal,
      sandbox: context.sandbox,
      confineTo: confineTo(context),
    });
  } catch (error) {
    if (WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')) {
      throw new HttpError(400, error.message.replaceAll(directory.ref, directory.realPath()));
    }
    if (WorkspaceError.isInstance(error, 'GIT_ERROR')) {
      const message = error.message.replaceAll(directory.ref, directory.realPath());
      throw new HttpError(500, `Failed to generate git delta: ${message}`);
    }
    throw error;
  }
}

/** OpenHands' `X-Archive-Repo-*` headers of the repository archived. */
function repositoryHeaders(context: ServerContext, directory: DirectoryHandle) {
  return archiveRepositoryHeaders({
    cwd: workPath(context, directory),
    realPath: directory.realPath(),
    sandbox: context.sandbox,
    confineTo: confineTo(context),
    signal: context.shutdownSignal,
  });
}

/**
 * The path git works with: the open directory itself (`/proc/self/fd/<fd>`) on Linux without a
 * sandbox, so the directory checked is the one read; otherwise its real path.
 */
function workPath(context: ServerContext, directory: DirectoryHandle): string {
  return PROC_FD_WALKS && context.sandbox === undefined ? directory.ref : directory.realPath();
}

/** The working directory git must stay in, when the server is confined. */
function confineTo(context: ServerContext): string | undefined {
  return context.options.confineToWorkingDir ? context.paths.rootRealPath : undefined;
}

/** Opens the directory to archive: 404 `Directory not found`, 400 not a directory, 403. */
function openArchiveDirectory(context: ServerContext, input: string): DirectoryHandle {
  try {
    return openDirectory(context.paths, input, 'path');
  } catch (error) {
    if (WorkspaceError.isInstance(error, 'NOT_FOUND')) {
      throw new HttpError(404, 'Directory not found');
    }
    if (WorkspaceError.isInstance(error) && error.details.reason === 'not-directory') {
      throw new HttpError(400, 'Path is not a directory');
    }
    throw pathHttpError(error, 'download');
  }
}

/** A ref as OpenHands sends it, percent-encoded when it is not printable ASCII. */
function headerSafe(value: string): string {
  return /^[\x21-\x7e]+$/.test(value) ? value : encodeURIComponent(value);
}
