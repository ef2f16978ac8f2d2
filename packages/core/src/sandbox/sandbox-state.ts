/**
 * Where a sandbox is in its life, as its provider reports it:
 * `starting` (created, not yet running), `running`, `paused`, `exited` (stopped, crashed or
 * being removed) or `missing` (the provider no longer knows it).
 */
export type SandboxStatus = 'starting' | 'running' | 'paused' | 'exited' | 'missing';

/** A sandbox's state, from {@link SandboxWorkspace}'s `sandboxState()` hook. */
export interface SandboxState {
  /** Lifecycle status. */
  status: SandboxStatus;
  /** Exit code once `exited`, when known (death by signal `n` is `128 + n`). */
  exitCode?: number | undefined;
  /** The provider's extra words, e.g. `OOMKilled` or an error message. */
  detail?: string | undefined;
}

/** True when the sandbox is gone for good (`exited` or `missing`). */
export function isSandboxGone(state: SandboxState): boolean {
  return state.status === 'exited' || state.status === 'missing';
}

/** Describes `state` for a message, e.g. `exited with code 137 (OOMKilled)`. */
export function describeSandboxState(state: SandboxState): string {
  const words: Record<SandboxStatus, string> = {
    starting: 'is still starting',
    running: 'is running',
    paused: 'is paused',
    exited: 'exited',
    missing: 'no longer exists',
  };
  const code = state.exitCode === undefined ? '' : ` with code ${state.exitCode}`;
  const detail = state.detail ? ` (${state.detail})` : '';
  return `${words[state.status]}${code}${detail}`;
}
