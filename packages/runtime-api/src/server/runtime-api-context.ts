import { timeoutSignal } from '@agent-workspace/core/internal';
import type { FastifyBaseLogger } from 'fastify';
import type { RuntimeBackend } from '../backend/runtime-backend.js';
import type { ResolvedRuntimeApiServerOptions } from './runtime-api-server-options.js';
import type { StartGate } from './start-gate.js';
import type { WarmPool } from './warm-pool.js';

/** What the routes and the idle reaper of one Runtime API server share. */
export interface RuntimeApiContext {
  options: ResolvedRuntimeApiServerOptions;
  backend: RuntimeBackend;
  /** Aborted when the server closes: ends probes and backend calls in flight. */
  signal: AbortSignal;
  /** Serialises the count-and-reserve step of `/start`. */
  startGate: StartGate;
  /** The warm pools, when `warmPool` configures any. */
  warmPool?: WarmPool | undefined;
  log: FastifyBaseLogger;
}

/** Longest one backend (engine) call may take; then it is aborted and answered 504. */
export const ENGINE_CALL_TIMEOUT_MS = 60_000;

/** The signal of one backend call: aborted when the server closes or after the call's bound. */
export function engineCallSignal(context: Pick<RuntimeApiContext, 'signal'>): AbortSignal {
  return timeoutSignal({ timeoutMs: ENGINE_CALL_TIMEOUT_MS, signal: context.signal });
}
