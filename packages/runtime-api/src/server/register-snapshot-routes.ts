import { HttpError } from '@agent-workspace/agent-server/http';
import { WorkspaceError } from '@agent-workspace/core';
import {
  RUNTIME_API_ROUTES,
  type RuntimeSnapshotWire,
  runtimeSnapshotIdSchema,
  runtimeSnapshotListWireSchema,
  runtimeSnapshotRemovedWireSchema,
  runtimeSnapshotWireSchema,
  takeRuntimeSnapshotRequestWireSchema,
} from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { BackendSnapshot } from '../backend/runtime-snapshot-backend.js';
import { answering } from './register-runtime-api-routes.js';
import { engineCallSignal, type RuntimeApiContext } from './runtime-api-context.js';
import { snapshotsOf } from './snapshots-of.js';
import { unstoppedSession } from './unstopped-session.js';

const snapshotParamsSchema = z.object({ snapshot_id: runtimeSnapshotIdSchema });

/**
 * Registers the snapshot routes (ours; not in OpenHands), 501 on a backend without snapshots:
 * `POST /snapshots` (201 the new snapshot of a running or paused session; 404 an unknown
 * runtime id, 409 a stopped session, 429 at `maxSnapshots`), `GET /snapshots` (this server's namespace only, newest
 * first) and `DELETE /snapshots/{snapshot_id}` (200; 404 unknown, 409 while a session started
 * from it exists). A snapshot holds the session's files, not its processes, and no value of its
 * environment (neither the user's nor the key's hash).
 */
export function registerSnapshotRoutes(app: FastifyInstance, context: RuntimeApiContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  /** Snapshots are taken one at a time, so that `maxSnapshots` holds for this server. */
  let taking: Promise<unknown> = Promise.resolve();
  const call = () => ({ signal: engineCallSignal(context) });
  const tags = ['Runtime API'];

  routes.post(
    RUNTIME_API_ROUTES.snapshots,
    {
      schema: {
        tags,
        summary:
          "Snapshot a session's filesystem (running or paused); start from it with from_snapshot",
        body: takeRuntimeSnapshotRequestWireSchema,
        response: { 201: runtimeSnapshotWireSchema },
      },
    },
    async (request, reply) =>
      answering(context, reply, async () => {
        const snapshots = snapshotsOf(context);
        const runtimeId = request.body.runtime_id;
        await unstoppedSession(context, runtimeId);
        const take = async () => {
          const { maxSnapshots } = context.options;
          if ((await snapshots.list(call())).length >= maxSnapshots) {
            throw new HttpError(
              429,
              `this namespace holds maxSnapshots (${maxSnapshots}) snapshots; remove one first`,
            );
          }
          return snapshots.take(runtimeId, { name: request.body.name, ...call() });
        };
        const taken = taking.then(take, take);
        taking = taken.catch(() => {});
        return reply.status(201).send(toWire(await taken));
      }),
  );

  routes.get(
    RUNTIME_API_ROUTES.snapshots,
    {
      schema: {
        tags,
        summary: "Every snapshot of this server's namespace, newest first",
        response: { 200: runtimeSnapshotListWireSchema },
      },
    },
    async (_request, reply) =>
      answering(context, reply, async () => ({
        snapshots: (await snapshotsOf(context).list(call())).map(toWire),
      })),
  );

  routes.delete(
    RUNTIME_API_ROUTES.snapshot,
    {
      schema: {
        tags,
        summary: 'Remove a snapshot; 409 while a session started from it exists',
        params: snapshotParamsSchema,
        response: { 200: runtimeSnapshotRemovedWireSchema },
      },
    },
    async (request, reply) =>
      answering(context, reply, async () => {
        const snapshotId = request.params.snapshot_id;
        let removed: boolean;
        try {
          removed = await snapshotsOf(context).remove(snapshotId, call());
        } catch (error) {
          if (!WorkspaceError.isInstance(error, 'WORKSPACE_OCCUPIED')) throw error;
          throw new HttpError(
            409,
            `snapshot ${snapshotId} is in use by a session started from it; stop that session first`,
          );
        }
        if (!removed) throw new HttpError(404, `snapshot ${snapshotId} not found`);
        return { snapshot_id: snapshotId, status: 'removed' as const };
      }),
  );
}

function toWire(snapshot: BackendSnapshot): RuntimeSnapshotWire {
  return {
    snapshot_id: snapshot.snapshotId,
    session_id: snapshot.sessionId,
    image: snapshot.image,
    name: snapshot.name,
    created_at: snapshot.createdAt,
    size_bytes: snapshot.sizeBytes,
  };
}
