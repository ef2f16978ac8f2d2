import { readGitChanges, readGitDiff, WorkspaceError } from '@agent-workspace/core';
import { gitChangeWireSchema, gitDiffWireSchema } from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HttpError } from '../app/http-error.js';
import type { ServerContext } from '../app/server-context.js';

const changesQuerySchema = z.object({
  path: z.string().describe('Repository directory; relative paths resolve against workingDir'),
  ref: z.string().optional().describe('Base ref; default: the remote branch or merge base'),
});

const diffQuerySchema = z.object({
  path: z.string().describe('File path; relative paths resolve against workingDir'),
  ref: z.string().optional().describe('Base ref (not with commit)'),
  commit: z
    .string()
    .regex(/^[0-9a-fA-F]{4,64}$/)
    .optional()
    .describe('Base commit sha (not with ref)'),
});

/** Runs a git read, answering 400 `{"detail": message}` for bad arguments and git failures. */
async function gitRead<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (
      WorkspaceError.isInstance(error, 'INVALID_ARGUMENT') ||
      WorkspaceError.isInstance(error, 'GIT_ERROR')
    ) {
      throw new HttpError(400, error.message);
    }
    throw error;
  }
}

/**
 * Registers OpenHands' `GET /api/git/changes` and `GET /api/git/diff`, backed by core's
 * `readGitChanges` / `readGitDiff`. Unlike OpenHands, a relative `path` resolves against the
 * working directory (not the server's cwd) and goes through `context.resolvePath`, so
 * confinement gives 403. Both count as activity for `idle_time`.
 */
export function registerGitRoutes(scope: FastifyInstance, context: ServerContext): void {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const tags = ['Git'];

  app.get(
    '/api/git/changes',
    {
      schema: {
        tags,
        querystring: changesQuerySchema,
        response: { 200: z.array(gitChangeWireSchema) },
      },
    },
    async (request) => {
      context.touch();
      const { path, ref } = request.query;
      const target = await context.resolvePath(path, 'path');
      return gitRead(() => readGitChanges({ path: target, ...(ref !== undefined && { ref }) }));
    },
  );

  app.get(
    '/api/git/diff',
    { schema: { tags, querystring: diffQuerySchema, response: { 200: gitDiffWireSchema } } },
    async (request) => {
      context.touch();
      const { path, ref, commit } = request.query;
      const target = await context.resolvePath(path, 'path');
      return gitRead(() =>
        readGitDiff({
          path: target,
          ...(ref !== undefined && { ref }),
          ...(commit !== undefined && { commit }),
        }),
      );
    },
  );
}
