import os from 'node:os';
import { workspaceIdOf } from '@agent-workspace/core';
import {
  AGENT_SERVER_ROUTES,
  type WorkspaceIdentityWire,
  type WorkspaceProjectionKind,
  workspaceIdentityWireSchema,
} from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../app/server-context.js';

/**
 * Environment variable naming how the server's working directory is projected: `container`
 * when the server runs in a container (images may set it); anything else, or unset, means
 * `canonical`.
 */
export const WORKSPACE_PROJECTION_ENV = 'AGENT_WORKSPACE_PROJECTION';

/** The projection kind {@link WORKSPACE_PROJECTION_ENV} asks for. */
export function serverProjectionKind(
  env: NodeJS.ProcessEnv = process.env,
): WorkspaceProjectionKind {
  return env[WORKSPACE_PROJECTION_ENV] === 'container' ? 'container' : 'canonical';
}

/**
 * Registers our `GET /api/workspace/identity` (announced as `WORKSPACE_IDENTITY_CAPABILITY`):
 * the identity of the server's working directory, as a `LocalWorkspace` on it would report it
 * (the same `workspaceId` for the same directory on this machine), with the projection of
 * {@link WORKSPACE_PROJECTION_ENV} and `access_mode` `exclusive_write` (the server holds no
 * lease). Needs the session key like every `/api/*` route.
 */
export function registerWorkspaceIdentityRoutes(
  app: FastifyInstance,
  context: ServerContext,
): void {
  const { workingDir } = context.options;
  const projectionKind = serverProjectionKind();
  const identity: WorkspaceIdentityWire = {
    workspace_id: workspaceIdOf({ host: os.hostname(), kind: 'local', anchor: workingDir }),
    anchor: workingDir,
    execution_root: workingDir,
    cwd: workingDir,
    projection_kind: projectionKind,
    access_mode: 'exclusive_write',
  };
  app.get(
    AGENT_SERVER_ROUTES.workspaceIdentity,
    { schema: { tags: ['Workspace'], response: { 200: workspaceIdentityWireSchema } } },
    async () => identity,
  );
}
