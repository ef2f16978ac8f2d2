import { setTimeout as sleep } from 'node:timers/promises';
import { abortedError } from '@agent-workspace/core';
import { dockerError } from '@agent-workspace/docker/engine';
import type Docker from 'dockerode';

/** Options of {@link engineCall}. */
export interface EngineCallOptions {
  docker: Docker;
  /** What is being done, e.g. `pause container x`: named in the error. */
  action: string;
  /** The image, named when the engine does not have it. */
  image?: string | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Runs one engine call: rejects with `ABORTED` when `signal` fired (before or during the call),
 * else turns an engine failure into a `WorkspaceError` naming `action` (see `dockerError`).
 */
export async function engineCall<T>(
  { docker, action, image, signal }: EngineCallOptions,
  call: () => Promise<T>,
): Promise<T> {
  if (signal?.aborted) throw abortedError(signal);
  try {
    return await call();
  } catch (error) {
    if (signal?.aborted) throw abortedError(signal);
    throw dockerError(error, { docker, action, image });
  }
}

/** Waits `ms`, rejecting with `ABORTED` when `signal` fires first. */
export async function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch (error) {
    if (signal?.aborted) throw abortedError(signal);
    throw error;
  }
}

/** The `label` filter values (`key=value`) of a set of labels. */
export function labelFilter(labels: Record<string, string>): string[] {
  return Object.entries(labels).map(([key, value]) => `${key}=${value}`);
}
