import { randomBytes } from 'node:crypto';
import { HttpError } from '@agent-workspace/agent-server/http';
import { WorkspaceError } from '@agent-workspace/core';
import type {
  RuntimeSessionWire,
  StartRuntimeRequestWire,
  ValidationIssue,
} from '@agent-workspace/protocol';
import { releaseFailedStart } from '../backend/release-failed-start.js';
import type { BackendSession, SessionResources, SessionSpec } from '../backend/runtime-backend.js';
import { RUNTIME_LABELS, sessionLabels } from '../backend/session-labels.js';
import {
  SESSION_VOLUMES_LABEL,
  sessionVolumes,
  sessionVolumesDigest,
} from '../backend/session-volumes.js';
import { acknowledgeSession } from './acknowledge-session.js';
import { awaitSessionAddress } from './await-session-address.js';
import { RetryLaterError } from './backend-http-error.js';
import { describeSession } from './describe-session.js';
import { reservedEnvironmentReason } from './reserved-environment-names.js';
import {
  ENGINE_CALL_TIMEOUT_MS,
  engineCallSignal,
  type RuntimeApiContext,
} from './runtime-api-context.js';
import type { ResolvedRuntimeApiServerOptions } from './runtime-api-server-options.js';
import { type AllowHostsOptions, allowHostsIssues, sessionSandbox } from './session-allow-hosts.js';
import { deriveSessionKey, sessionKeyHash } from './session-key.js';
import { checkSameSnapshot, fromSnapshotSpec, startSnapshot } from './start-snapshot.js';
import { type VolumeIssuesOptions, volumeIssues } from './volume-issues.js';

/** `Retry-After` of a start refused at the session limit, in seconds. */
export const SESSION_LIMIT_RETRY_AFTER_SECONDS = 10;

/** What `/start` did. */
export interface StartOutcome {
  /** A new session (201), or the existing one of an idempotent retry (200). */
  created: boolean;
  session: RuntimeSessionWire;
}

/**
 * `POST /start`: checks what the schema cannot (an allowed image, no reserved environment name,
 * no registry pull), then — alone among this process's starts — looks the session id up and
 * counts the namespace's sessions (plus starts in flight) against `maxSessions`, and starts the
 * sandbox with a fresh 32-hex runtime id and key nonce, answering once it has an address
 * (`awaitSessionAddress`) — or, when a warm pool serves the request (`warmPoolServes`), claims
 * one of its ready sandboxes instead. An existing session with the same image
 * is answered as is (which acknowledges it, see `acknowledgeSession`); with another image it is a
 * 409. A session whose sandbox stopped is replaced. A new sandbox that stopped before the answer
 * (its agent-server exited at once) is removed and answered as a `PROVISIONING_ERROR` (502) with
 * the engine's message and its last log lines, never as a session.
 *
 * Fields: `working_dir`, `run_as_user` and `environment` reach the sandbox. Accepted and ignored
 * (the official client always sends them): `command` — the image's own entrypoint starts the
 * agent-server on the port the backend publishes (an OpenHands command names a binary our image
 * lacks); `runtime_class` — the engine's default runtime is the operator's choice, not a
 * client's; `fs_group` — a Kubernetes volume setting Docker has no counterpart for.
 * `image_pull_policy: Always` is refused (422): this server never pulls, the image must be on
 * the engine; `IfNotPresent` and `Never` both mean exactly that.
 *
 * `volumes` (ours): binds of operator-allowed host directories and the namespace's shared named
 * volumes (`sessionVolumes`). A start with volumes never claims a warm sandbox (it runs without
 * them), and their digest is a label: an existing session is answered again only for the same
 * volumes, else 409 like another image.
 *
 * `from_snapshot` (ours): the sandbox starts from that snapshot's filesystem (`startSnapshot`:
 * `image` must be the snapshot's); never from a warm sandbox (`warmPoolServes`), and an existing
 * session is answered again only when started from the same snapshot, else 409.
 */
export async function startSession(
  context: RuntimeApiContext,
  body: StartRuntimeRequestWire,
): Promise<StartOutcome> {
  const issues = requestIssues(context.options, body);
  if (issues.length > 0) throw new HttpError(422, issues);
  const snapshot = await startSnapshot(context, body);
  const { backend, startGate } = context;
  const call = () => ({ signal: engineCallSignal(context) });
  const sessionId = body.session_id;
  for (;;) {
    const step = await startGate.exclusive(async () => {
      const pending = startGate.inFlight(sessionId);
      if (pending) return { pending };
      const existing = await backend.get(sessionId, call());
      if (existing && existing.status !== 'stopped') return { existing };
      if (existing) await backend.stop(runtimeIdOf(existing), call());
      // Starts in flight before listing: one settling during the listing (a claim takes
      // milliseconds) may be missing from the list, but is still in this snapshot.
      const starting = startGate.starting;
      const sessions = await backend.list(call());
      const ids = new Set([...sessions.map(sessionIdOf), ...starting]);
      if (ids.size >= context.options.maxSessions) throw sessionLimitError(context.options);
      const cold = () =>
        backend.start(fromSnapshotSpec(sessionSpec(context, body), snapshot), call());
      // A warm sandbox runs without mounts: a start with volumes is always cold.
      const warm = body.volumes?.length
        ? undefined
        : context.warmPool?.claim(sessionId, body, cold, engineCallSignal(context));
      return { started: startGate.track(sessionId, warm ?? cold()) };
    });
    if (step.pending) {
      await step.pending;
      continue;
    }
    if (step.existing) return existingOutcome(context, body, step.existing);
    try {
      const session = await awaitSessionAddress(context, await step.started);
      if (session.status === 'stopped') return await failedStart(context, session);
      return { created: true, session: await describe(context, session) };
    } catch (error) {
      if (!WorkspaceError.isInstance(error, 'ALREADY_EXISTS')) throw error;
      // Another server of this namespace started it meanwhile.
      const existing = await backend.get(sessionId, call());
      if (!existing) throw error;
      return existingOutcome(context, body, existing);
    }
  }
}

async function existingOutcome(
  context: RuntimeApiContext,
  body: StartRuntimeRequestWire,
  existing: BackendSession,
): Promise<StartOutcome> {
  if (existing.labels[RUNTIME_LABELS.image] !== body.image) {
    throw new HttpError(
      409,
      `session ${body.session_id} already exists with another image; stop it or use another session_id`,
    );
  }
  if (existing.labels[SESSION_VOLUMES_LABEL] !== sessionVolumesDigest(body.volumes)) {
    throw new HttpError(
      409,
      `session ${body.session_id} already exists with other volumes; stop it or use another session_id`,
    );
  }
  checkSameSnapshot(existing, body);
  return {
    created: false,
    session: await describe(context, await acknowledgeSession(context, existing)),
  };
}

/**
 * Removes a new session whose sandbox stopped before `/start` answered, and throws its failure
 * as a `PROVISIONING_ERROR` holding the engine's message and the sandbox's last log lines (read
 * before the removal).
 */
async function failedStart(context: RuntimeApiContext, session: BackendSession): Promise<never> {
  const runtimeId = runtimeIdOf(session);
  const sessionId = sessionIdOf(session);
  const wire = await describeSession(context, session, { withKey: false });
  const why = wire?.message ?? session.message ?? 'no reason given';
  const error = new WorkspaceError({
    code: 'PROVISIONING_ERROR',
    message: `the sandbox of session ${sessionId} stopped as it started: ${why}`,
    details: { sessionId, runtimeId },
  });
  return releaseFailedStart(error, {
    backend: context.backend,
    runtimeId,
    timeoutMs: ENGINE_CALL_TIMEOUT_MS,
  });
}

async function describe(
  context: RuntimeApiContext,
  session: BackendSession,
): Promise<RuntimeSessionWire> {
  const wire = await describeSession(context, session, { withKey: true });
  if (!wire) throw new Error('the backend answered a session without its labels');
  return wire;
}

function sessionIdOf(session: BackendSession): string | undefined {
  return session.labels[RUNTIME_LABELS.sessionId];
}

function runtimeIdOf(session: BackendSession): string {
  const runtimeId = session.labels[RUNTIME_LABELS.runtimeId];
  if (!runtimeId) throw new Error('the backend answered a session without its runtime id');
  return runtimeId;
}

function sessionLimitError(options: ResolvedRuntimeApiServerOptions): RetryLaterError {
  return new RetryLaterError(
    429,
    `session limit reached: this server runs at most ${options.maxSessions} sessions (maxSessions); stop one or retry later`,
    SESSION_LIMIT_RETRY_AFTER_SECONDS,
  );
}

/** The new session's spec: fresh ids and nonce, only the key's hash, scaled resources. */
function sessionSpec(context: RuntimeApiContext, body: StartRuntimeRequestWire): SessionSpec {
  const runtimeId = randomBytes(16).toString('hex');
  const keyNonce = randomBytes(16).toString('hex');
  const key = deriveSessionKey(context.options.sessionKeySecret, body.session_id, keyNonce);
  const resourceFactor = body.resource_factor ?? 1;
  const volumesDigest = sessionVolumesDigest(body.volumes);
  return {
    sessionId: body.session_id,
    runtimeId,
    image: body.image,
    // The agent-server reports its working directory as a container projection.
    environment: { ...body.environment, AGENT_WORKSPACE_PROJECTION: 'container' },
    sessionKeyHash: sessionKeyHash(key),
    workingDir: body.working_dir,
    runAsUser: body.run_as_user ?? undefined,
    resourceFactor,
    resources: scaleResources(context.options.resources, resourceFactor),
    sandbox: sessionSandbox(context.options, body.allow_hosts),
    volumes: sessionVolumes(context.backend.namespace, body.volumes),
    labels: {
      ...sessionLabels({
        namespace: context.backend.namespace,
        sessionId: body.session_id,
        runtimeId,
        image: body.image,
        resourceFactor,
        createdAt: new Date().toISOString(),
        keyNonce,
      }),
      ...(volumesDigest && { [SESSION_VOLUMES_LABEL]: volumesDigest }),
    },
  };
}

/** The server's base limits times `factor` (unset limits stay unset). */
export function scaleResources(base: SessionResources, factor: number): SessionResources {
  return {
    ...(base.memoryBytes !== undefined && { memoryBytes: base.memoryBytes * factor }),
    ...(base.cpus !== undefined && { cpus: base.cpus * factor }),
    ...(base.pidsLimit !== undefined && { pidsLimit: base.pidsLimit * factor }),
  };
}

/**
 * What the body schema cannot judge, as FastAPI-style issues: an image outside the allowed
 * list, a reserved environment name, `image_pull_policy: Always` (this server never pulls), an
 * `allow_hosts` entry that does not parse or widens the operator's allow-list, a `volumes` entry
 * the operator does not allow or that hides the working directory (see `volumeIssues`).
 */
export function requestIssues(
  options: Pick<ResolvedRuntimeApiServerOptions, 'images'> &
    AllowHostsOptions &
    VolumeIssuesOptions,
  body: StartRuntimeRequestWire,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [
    ...allowHostsIssues(options, body.allow_hosts),
    ...volumeIssues(options, body),
  ];
  if (!options.images.includes(body.image)) {
    issues.push({
      type: 'value_error',
      loc: ['body', 'image'],
      msg: `Value error, image is not allowed on this server; allowed: ${options.images.join(', ')}`,
      input: body.image,
    });
  }
  for (const name of Object.keys(body.environment ?? {})) {
    const reason = reservedEnvironmentReason(name);
    if (reason) {
      issues.push({
        type: 'value_error',
        loc: ['body', 'environment', name],
        msg: `Value error, ${name} is reserved: ${reason}`,
        input: name,
      });
    }
  }
  if (body.image_pull_policy === 'Always') {
    issues.push({
      type: 'value_error',
      loc: ['body', 'image_pull_policy'],
      msg: 'Value error, this server never pulls from a registry: the image must already be on the engine (use IfNotPresent or Never)',
      input: body.image_pull_policy,
    });
  }
  return issues;
}
