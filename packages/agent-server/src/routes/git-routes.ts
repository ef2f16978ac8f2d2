import { WorkspaceError } from '@agent-workspace/core';
import {
  AGENT_SERVER_ROUTES,
  clientPathSchema,
  GIT_CHANGES_TRUNCATED_HEADER,
  GIT_COMMIT_CHANGES_TRUNCATION,
  GIT_SHA_PATTERN,
  gitChangeWireSchema,
  gitCommitShaParamsWireSchema,
  gitCommitsPageWireSchema,
  gitCommitsQueryWireSchema,
  gitDiffWireSchema,
  toGitCommitsPageWire,
} from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../app/http-error.js';
import type { ServerContext } from '../app/server-context.js';
import { readServerGitChanges, readServerGitDiff } from '../git/server-git.js';
import { readServerGitCommitChanges, readServerGitCommits } from '../git/server-git-commits.js';

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
    .regex(GIT_SHA_PATTERN)
    .optional()
    .describe(
      'A commit sha (not with ref): the file as that commit changed it, against its first parent',
    ),
});

/** 403 for what confinement refuses; 400 with git's message for bad arguments and git failures. */
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

const commitChangesQuerySchema = z.object({
  path: clientPathSchema.describe(
    'Repository directory; relative paths resolve against workingDir',
  ),
});

/**
 * Registers OpenHands' `GET /api/git/changes`, `GET /api/git/diff`, `GET /api/git/commits` and
 * `GET /api/git/commits/{sha}/changes`, backed by core's `readGitChanges` / `readGitDiff` /
 * `readGitCommitDiff` / `readGitCommits` / `readGitCommitChanges`. Unlike OpenHands, a relative `path` resolves against the
 * working directory (not the server's cwd) and is resolved race-free through `context.paths`,
 * so confinement gives 403; git runs in the command sandbox when the server has one. The search
 * for nested repositories is bounded by the server's `gitSearch*` options; when it stops at a
 * bound, the changes found are answered with {@link GIT_CHANGES_TRUNCATED_HEADER} naming it.
 * A commit's changes past `MAX_GIT_COMMIT_CHANGES` are cut, with that header set to
 * {@link GIT_COMMIT_CHANGES_TRUNCATION}. Each counts as activity for `idle_time`.
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
      try {
        const { changes, truncation } = await readServerGitChanges(context, { path, ref });
        if (truncation !== undefined) reply.header(GIT_CHANGES_TRUNCATED_HEADER, truncation);
        return changes;
      } catch (error) {
        throw gitHttpError(error);
      }
    },
  );

  app.get(
    AGENT_SERVER_ROUTES.gitDiff,
    { schema: { tags, querystring: diffQuerySchema, response: { 200: gitDiffWireSchema } } },
    async (request) => {
      context.touch();
      const { path, ref, commit } = request.query;
      try {
        return await readServerGitDiff(context, { path, ref, commit });
      } catch (error) {
        throw gitHttpError(error);
      }
    },
  );

  app.get(
    AGENT_SERVER_ROUTES.gitCommits,
    {
      schema: {
        tags,
        description: 'The most recent commits reachable from HEAD, newest first.',
        querystring: gitCommitsQueryWireSchema,
        response: { 200: gitCommitsPageWireSchema },
      },
    },
    async (request) => {
      context.touch();
      const { path, limit } = request.query;
      try {
        return toGitCommitsPageWire(await readServerGitCommits(context, { path, limit }));
      } catch (error) {
        throw gitHttpError(error);
      }
    },
  );

  app.get(
    AGENT_SERVER_ROUTES.gitCommitChanges,
    {
      schema: {
        tags,
        description: `The files one commit changed against its first parent. Past MAX_GIT_COMMIT_CHANGES the first ones are answered with the header ${GIT_CHANGES_TRUNCATED_HEADER}: ${GIT_COMMIT_CHANGES_TRUNCATION}.`,
        params: gitCommitShaParamsWireSchema,
        querystring: commitChangesQuerySchema,
        response: { 200: z.array(gitChangeWireSchema) },
      },
    },
    async (request, reply) => {
      context.touch();
      try {
        const { changes, truncated } = await readServerGitCommitChanges(context, {
          path: request.query.path,
          sha: request.params.sha,
        });
        if (truncated) reply.header(GIT_CHANGES_TRUNCATED_HEADER, GIT_COMMIT_CHANGES_TRUNCATION);
        return changes;
      } catch (error) {
        throw gitHttpError(error);
      }
    },
  );
}
