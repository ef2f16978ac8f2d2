import { WorkspaceError } from '@agent-workspace/core';
import type { FastifyBaseLogger } from 'fastify';
import type {
  BackendSession,
  RuntimeBackend,
  WarmSandboxBackend,
} from '../backend/runtime-backend.js';
import { RUNTIME_LABELS } from '../backend/session-labels.js';
import type { ImagePool } from './image-pool.js';
import { recordActivity } from './probe-agent-server.js';
import { deriveClaimedKey, deriveSandboxKey } from './session-key.js';
import { initWarmSandbox } from './warm-sandbox-init.js';

/** Options of {@link claimWarmSandbox}. */
export interface ClaimWarmSandboxOptions {
  /** The backend's warm side, which binds the sandbox to the session. */
  sandboxes: WarmSandboxBackend;
  /** Stops a claimed sandbox that turned out unusable (it is a session by then). */
  backend: RuntimeBackend;
  /** The pool the sandbox was taken from (it goes back there if the session id is taken). */
  pool: ImagePool;
  /** The warm sandbox, already taken out of `pool.ready`. */
  runtimeId: string;
  sessionId: string;
  sessionKeySecret: string;
  /** Longest one agent-server probe may take, in milliseconds. */
  probeTimeoutMs: number;
  log: FastifyBaseLogger;
  /** Removes an unclaimed warm sandbox, never throwing. */
  remove: (runtimeId: string, signal: AbortSignal) => Promise<void>;
  /** Starts the session cold, when the warm sandbox cannot serve it. */
  cold: () => Promise<BackendSession>;
  signal: AbortSignal;
}

/**
 * Claims the warm sandbox `runtimeId` for `sessionId`: binds it to the session in the engine
 * (`claimWarm`), gives its dormant agent-server the session's key (`POST /api/init` with the
 * sandbox's init key) and resets its idle time, answering the claimed session. `ALREADY_EXISTS`
 * when the session id is taken (the sandbox goes back to the front of the pool). A sandbox the
 * engine could not bind is removed, one that is not running or refuses init is stopped, and
 * `cold()` answers instead.
 */
export async function claimWarmSandbox(options: ClaimWarmSandboxOptions): Promise<BackendSession> {
  const { pool, runtimeId, sessionId, sessionKeySecret, log, cold, signal } = options;
  let session: BackendSession;
  try {
    session = await options.sandboxes.claimWarm(runtimeId, sessionId, { signal });
  } catch (error) {
    if (WorkspaceError.isInstance(error, 'ALREADY_EXISTS')) {
      pool.ready.unshift(runtimeId);
      throw error;
    }
    log.warn({ runtimeId, err: error }, 'could not claim a warm sandbox; starting cold');
    await options.remove(runtimeId, signal);
    return cold();
  }
  pool.claimedTotal += 1;
  const nonce = session.labels[RUNTIME_LABELS.keyNonce] ?? '';
  const initKey = deriveSandboxKey(sessionKeySecret, runtimeId, nonce);
  const key = deriveClaimedKey(sessionKeySecret, sessionId, runtimeId, nonce);
  const url = session.engineState === 'running' ? session.url : undefined;
  const probe = { timeoutMs: options.probeTimeoutMs, signal };
  const failure =
    url === undefined
      ? 'it is not running'
      : await initWarmSandbox(url, initKey, key, probe).then(
          () => undefined,
          (error: Error) => `init failed: ${error.message}`,
        );
  // A refused init is fine when the same init won a race (a restarted server finishing this
  // claim, see `initClaimedSession`): the sandbox then takes the session's key.
  const answered = url !== undefined && (await recordActivity(url, key, probe)) === 'recorded';
  if (url === undefined || (failure !== undefined && !answered)) {
    // Bound to this session already: a dead sandbox or one refusing init goes; the start is cold.
    log.warn(
      { sessionId, runtimeId, reason: failure },
      'a claimed warm sandbox is unusable; starting cold',
    );
    await options.backend.stop(runtimeId, { signal });
    return cold();
  }
  if (answered) return { ...session, answered: true };
  log.warn({ sessionId, runtimeId }, 'could not reset the idle time of a claimed sandbox');
  return session;
}
