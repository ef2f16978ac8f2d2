import { HttpError } from '@agent-workspace/agent-server/http';
import { WorkspaceError } from '@agent-workspace/core';
import {
  HEALTH_OK,
  healthStatusSchema,
  RUNTIME_API_ROUTES,
  runtimeIdRequestWireSchema,
  runtimeSessionIdSchema,
  runtimeSessionListWireSchema,
  runtimeSessionWireSchema,
  runtimeStoppedWireSchema,
  startRuntimeRequestWireSchema,
  type WarmPoolStatsWire,
  warmPoolStatsWireSchema,
} from '@agent-workspace/protocol';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { acknowledgeSession } from './acknowledge-session.js';
import { awaitAgentServerHealth } from './await-agent-server-health.js';
import { awaitSessionAddress } from './await-session-address.js';
import { backendHttpError, RetryLaterError } from './backend-http-error.js';
import { describeSession } from './describe-session.js';
import { engineCallSignal, type RuntimeApiContext } from './runtime-api-context.js';
import { startSession } from './start-session.js';
import { unstoppedSession } from './unstopped-session.js';

/**
 * Route of `GET /sessions/{session_id}`: a wildcard, so that session ids longer than the
 * router's path-parameter limit (100) but within the protocol's (128) reach the handler; a
 * `preValidation` hook names the value `session_id` and the OpenAPI document shows the
 * protocol's path.
 */
export const SESSION_ROUTE_URL = '/sessions/*';

/** Most sessions `GET /sessions` probes at once. */
const LIST_PROBE_CONCURRENCY = 16;

const sessionParamsSchema = z.object({ session_id: runtimeSessionIdSchema });

/**
 * Registers the Runtime API routes (`RUNTIME_API_ROUTES`): `GET /health` (open), `POST /start`
 * (201 new, 200 the same session again, 409 the id taken with another image, 429 at
 * `maxSessions`, 502 a sandbox that failed as it started), `GET /sessions/{session_id}` (404
 * unknown; like a repeated start and a resume it acknowledges the session, see
 * `acknowledgeSession`), `GET /sessions` (no keys),
 * `POST /pause` and `/resume` (404 unknown, 409 stopped or changed by a concurrent call; a resume
 * that starts a new sandbox process answers once its agent-server is healthy) and
 * `POST /stop` — 200 `{runtime_id, status: "stopped"}` for any well-formed id, also one that is
 * gone or never was: the engine is the only record, so an id stopped long ago and one never
 * issued look the same, and a retried stop must not fail — and `GET /pool`, the warm pools'
 * numbers (`{"pools": []}` without pools).
 */
export function registerRuntimeApiRoutes(app: FastifyInstance, context: RuntimeApiContext): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const { backend } = context;
  const call = () => ({ signal: engineCallSignal(context) });
  const tags = ['Runtime API'];

  routes.get(
    RUNTIME_API_ROUTES.health,
    { schema: { tags, security: [], response: { 200: healthStatusSchema } } },
    async () => HEALTH_OK,
  );

  routes.get(
    RUNTIME_API_ROUTES.pool,
    {
      schema: {
        tags,
        summary: 'The warm pools per image: target, warm, starting, claimed total, failures',
        response: { 200: warmPoolStatsWireSchema },
      },
    },
    async (): Promise<WarmPoolStatsWire> => ({
      pools: (context.warmPool?.stats() ?? []).map((pool) => ({
        image: pool.image,
        target: pool.target,
        warm: pool.warm,
        starting: pool.starting,
        claimed_total: pool.claimedTotal,
        failures: pool.failures,
        last_failure: pool.lastFailure ?? null,
      })),
    }),
  );

  routes.post(
    RUNTIME_API_ROUTES.start,
    {
      schema: {
        tags,
        summary:
          'Start a session (201), or answer the existing one with the same image (200); includes its session_api_key',
        body: startRuntimeRequestWireSchema,
        response: { 200: runtimeSessionWireSchema, 201: runtimeSessionWireSchema },
      },
    },
    async (request, reply) =>
      answering(context, reply, async () => {
        const outcome = await startSession(context, request.body);
        return reply.status(outcome.created ? 201 : 200).send(outcome.session);
      }),
  );

  routes.get(
    SESSION_ROUTE_URL,
    {
      schema: {
        tags,
        summary: 'A session by its session_id, with its session_api_key',
        params: sessionParamsSchema,
        response: { 200: runtimeSessionWireSchema },
      },
      preValidation: async (request) => {
        request.params = { session_id: (request.params as unknown as { '*': string })['*'] };
      },
    },
    async (request, reply) =>
      answering(context, reply, async () => {
        const sessionId = request.params.session_id;
        const found = await backend.get(sessionId, call());
        const session = found && (await acknowledgeSession(context, found));
        const wire = session && (await describeSession(context, session, { withKey: true }));
        if (!wire) throw new HttpError(404, `session ${sessionId} not found`);
        return wire;
      }),
  );

  routes.get(
    RUNTIME_API_ROUTES.sessions,
    {
      schema: {
        tags,
        summary: "Every session of this server's namespace, without keys",
        response: { 200: runtimeSessionListWireSchema },
      },
    },
    async (_request, reply) =>
      answering(context, reply, async () => {
        const queue = [...(await backend.list(call()))];
        const sessions: z.infer<typeof runtimeSessionWireSchema>[] = [];
        const worker = async () => {
          for (let session = queue.shift(); session; session = queue.shift()) {
            const wire = await describeSession(context, session, { withKey: false });
            if (wire) sessions.push(wire);
          }
        };
        await Promise.all(Array.from({ length: LIST_PROBE_CONCURRENCY }, worker));
        sessions.sort((a, b) => (a.created_at ?? '').localeCompare(b.created_at ?? ''));
        return { sessions };
      }),
  );

  for (const [route, action] of [
    [RUNTIME_API_ROUTES.pause, 'pause'],
    [RUNTIME_API_ROUTES.resume, 'resume'],
  ] as const) {
    routes.post(
      route,
      {
        schema: {
          tags,
          summary: `${action === 'pause' ? 'Pause' : 'Resume'} a session (idempotent); answers the session`,
          body: runtimeIdRequestWireSchema,
          response: { 200: runtimeSessionWireSchema },
        },
      },
      async (request, reply) =>
        answering(context, reply, async () => {
          const runtimeId = request.body.runtime_id;
          const found = await unstoppedSession(context, runtimeId);
          const changed = await backend[action](runtimeId, call()).catch(async (error: unknown) => {
            throw await raceOutcome(context, runtimeId, action, error);
          });
          // A resumed Swarm task gets a new address once it is scheduled; a new sandbox process
          // (that task, a container the engine stopped while paused) is awaited until it answers.
          const addressed = await awaitSessionAddress(context, changed);
          if (addressed.url !== undefined && addressed.url !== found.url) {
            await awaitAgentServerHealth(context, addressed);
          }
          const session = await acknowledgeSession(context, addressed);
          const wire = await describeSession(context, session, { withKey: true });
          if (!wire) throw new HttpError(404, `runtime ${runtimeId} not found`);
          return wire;
        }),
    );
  }

  routes.post(
    RUNTIME_API_ROUTES.stop,
    {
      schema: {
        tags,
        summary:
          'Stop a session and remove its sandbox; 200 also when it is already gone (or never was)',
        body: runtimeIdRequestWireSchema,
        response: { 200: runtimeStoppedWireSchema },
      },
    },
    async (request, reply) =>
      answering(context, reply, async () => {
        await backend.stop(request.body.runtime_id, call());
        return { runtime_id: request.body.runtime_id, status: 'stopped' as const };
      }),
  );
}

/**
 * What a failed pause or resume is answered with when a concurrent call explains it: 404 when
 * the session was removed meanwhile, 409 when it stopped or the engine refused because its state
 * changed under it (another pause or resume won); otherwise the failure itself.
 */
async function raceOutcome(
  context: RuntimeApiContext,
  runtimeId: string,
  action: 'pause' | 'resume',
  error: unknown,
): Promise<unknown> {
  if (!WorkspaceError.isInstance(error)) return error;
  const now = await context.backend.getByRuntimeId(runtimeId, {
    signal: engineCallSignal(context),
  });
  if (!now) return new HttpError(404, `runtime ${runtimeId} not found`);
  if (now.status === 'stopped') {
    return new HttpError(409, `runtime ${runtimeId} is stopped; start a new session`);
  }
  if (error.details.statusCode === 409) {
    return new HttpError(
      409,
      `runtime ${runtimeId} changed state during the ${action} (a concurrent call?): ${error.message}`,
    );
  }
  return error;
}

/**
 * Runs a handler, turning backend failures into their answers (`backendHttpError`) and adding
 * `Retry-After` where the answer says when to retry.
 */
export async function answering<T>(
  context: RuntimeApiContext,
  reply: FastifyReply,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const answer = backendHttpError(error, { closing: context.signal.aborted });
    if (answer instanceof RetryLaterError) {
      reply.header('retry-after', String(answer.retryAfterSeconds));
    }
    throw answer;
  }
}
