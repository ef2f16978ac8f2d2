import {
  type ReadGitChangesOptions,
  readGitChanges,
  readGitDiff,
  WorkspaceError,
} from '@agent-workspace/core';
import { type DirectoryHandle, openDirectory, PROC_FD_WALKS } from '@agent-workspace/core/internal';
import {
  AGENT_SERVER_ROUTES,
  clientPathSchema,
  GIT_CHANGES_TRUNCATED_HEADER,
  type GitChangesTruncation,
  gitChangeWireSchema,
  gitDiffWireSchema,
} from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../app/http-error.js';
import type { ServerContext } from '../app/server-context.js';

const changesQuerySchema = z.object({
  path: clientPathSchema.describe(
    'Repository directory; relative paths resolve against workingDir',
  ),
  ref: z.string().optional().describe('Base ref; default: the remote branch or merge base'),
});

const diffQuerySchema = z.object({
  path: clientPathSchema.describe('File path; relative paths resolve against workingDir'),
  ref: z.string().optional().describe('Base ref (not with commit)'),
  commit: z
    .string()
    .regex(/^[0-9a-fA-F]{4,64}$/)
    .optional()
    .describe('Base commit sha (not with ref)'),
});

/**
 * Runs a git read, answering 400 `{"detail": message}` for bad arguments and git failures and
 * 403 for what confinement refuses.
 */
async function gitRead<T>(read: () => Promise<T>, directory: DirectoryHandle): Promise<T> {
  try {
    return await read();
  } catch (error) {
    const answer = gitHttpError(error);
    // Messages name the real path, not the descriptor path git was given.
    if (answer instanceof HttpError && typeof answer.detail === 'string') {
      const detail = answer.detail.replaceAll(`${directory.ref}/`, `${directory.realPath()}/`);
      throw new HttpError(answer.statusCode, detail);
    }
    throw answer;
  }
}

function gitHttpError(error: unknown): unknown {
  if (WorkspaceError.isInstance(error, 'FORBIDDEN')) return new HttpError(403, error.message);
  if (
    WorkspaceError.isInstance(error, 'INVALID_ARGUMENT') ||
    WorkspaceError.isInstance(error, 'NOT_FOUND') ||
    WorkspaceError.isInstance(error, 'GIT_ERROR')
  ) {
    return new HttpError(400, error.message);
  }
  return error;
}

/** The real working directory git reads must stay in, when the server is confined. */
function confineTo(context: ServerContext): string | undefined {
  return context.options.confineToWorkingDir ? context.paths.rootRealPath : undefined;
}

/** The server's bounds of the nested-repository search (core's defaults where unset). */
function searchLimits(context: ServerContext): ReadGitChangesOptions['searchLimits'] {
  const { options } = context;
  return {
    maxDepth: options.gitSearchMaxDepth,
    maxRepositories: options.gitSearchMaxRepositories,
    maxDirectories: options.gitSearchMaxDirectories,
    timeoutMs:
      options.gitSearchTimeoutSeconds === undefined
        ? undefined
        : options.gitSearchTimeoutSeconds * 1000,
  };
}

/**
 * The path git and the file reads work with for a directory opened through the walker: on Linux
 * without a sandbox the open directory itself (`/proc/self/fd/<fd>`, which child processes enter
 * before running), so the directory checked is the one read; otherwise its real path.
 */
function workPath(directory: DirectoryHandle, context: ServerContext): string {
  return PROC_FD_WALKS && context.sandbox === undefined ? directory.ref : directory.realPath();
}

/**
 * Registers OpenHands' `GET /api/git/changes` and `GET /api/git/diff`, backed by core's
 * `readGitChanges` / `readGitDiff`. Unlike OpenHands, a relative `path` resolves against the
 * working directory (not the server's cwd) and is resolved race-free through `context.paths`,
 * so confinement gives 403; git runs in the command sandbox when the server has one. The search
 * for nested repositories is bounded by the server's `gitSearch*` options; when it stops at a
 * bound, the changes found are answered with {@link GIT_CHANGES_TRUNCATED_HEADER} naming it.
 * Both count as activity for `idle_time`.
 */
export function registerGitRoutes(scope: FastifyInstance, context: ServerContext): void {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const tags = ['Git'];

  app.get(
    AGENT_SERVER_ROUTES.gitChanges,
    {
      schema: {
        tags,
        description: `Changes against a base ref, nested repositories included. When the search for nested repositories stops at a bound (depth, repositories, directories, time), the answer carries the header ${GIT_CHANGES_TRUNCATED_HEADER} naming it.`,
        querystring: changesQuerySchema,
        response: { 200: z.array(gitChangeWireSchema) },
      },
    },
    async (request, reply) => {
      context.touch();
      const { path, ref } = request.query;
      let directory: DirectoryHandle;
      try {
        directory = openDirectory(context.paths, path, 'path');
      } catch (error) {
        // As OpenHands: a missing directory has no changes.
        if (WorkspaceError.isInstance(error, 'NOT_FOUND')) return [];
        throw gitHttpError(error);
      }
      let truncation: GitChangesTruncation | undefined;
      try {
        const changes = await gitRead(
          () =>
            readGitChanges({
              path: workPath(directory, context),
              sandbox: context.sandbox,
              confineTo: confineTo(context),
              searchLimits: searchLimits(context),
              onTruncated: (bound) => {
                truncation = bound;
              },
              ...(ref !== undefined && { ref }),
            }),
          directory,
        );
        if (truncation !== undefined) reply.header(GIT_CHANGES_TRUNCATED_HEADER, truncation);
        return changes;
      } finally {
        directory.close();
      }
    },
  );

  app.get(
    AGENT_SERVER_ROUTES.gitDiff,
    { schema: { tags, querystring: diffQuerySchema, response: { 200: gitDiffWireSchema } } },
    async (request) => {
      context.touch();
      const { path, ref, commit } = request.query;
      const walk = context.paths.begin(path, 'path', { stopAtMissing: true });
      let end: ReturnType<typeof context.paths.walk>;
      try {
        end = context.paths.walk(walk);
        context.paths.assertInside(end.parent.realPath(), walk);
      } catch (error) {
        throw gitHttpError(error);
      }
      try {
        if (end.name === undefined) throw new HttpError(400, `path is a directory: ${path}`);
        const target = `${workPath(end.parent, context)}/${end.name}`;
        return await gitRead(
          () =>
            readGitDiff({
              path: target,
              sandbox: context.sandbox,
              confineTo: confineTo(context),
              ...(ref !== undefined && { ref }),
              ...(commit !== undefined && { commit }),
            }),
          end.parent,
        );
      } finally {
        end.parent.close();
      }
    },
  );
}
