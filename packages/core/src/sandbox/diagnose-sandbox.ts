import { raceSignal } from './race-signal.js';
import type { SandboxHookOptions, SandboxLogsOptions } from './sandbox-hooks.js';
import type { SandboxState } from './sandbox-state.js';

/** How long reading a sandbox's state or logs for an error message may take. */
const DIAGNOSE_TIMEOUT_MS = 5_000;
/** Longest log excerpt put into an error, in characters (the tail is kept). */
const MAX_LOG_CHARS = 8_000;

/** What diagnosing a sandbox needs: its workspace kind and its state and log hooks. */
export interface SandboxProbe {
  /** The workspace kind, for messages. */
  kind(): string;
  /** How many log lines to read. */
  readonly logTailLines: number;
  /** Reports the sandbox's state; `missing` when it is gone. */
  sandboxState(options: SandboxHookOptions): Promise<SandboxState>;
  /** Returns the sandbox's last log lines. */
  sandboxLogs(options: SandboxLogsOptions): Promise<string>;
}

/** What could be read about a sandbox for an error message. */
export interface SandboxDiagnosis {
  state?: SandboxState | undefined;
  logs?: string | undefined;
}

/** The sandbox's state and last log lines, each left out when it cannot be read in time. */
export async function diagnoseSandbox(probe: SandboxProbe): Promise<SandboxDiagnosis> {
  const [state, logs] = await Promise.all([readSandboxState(probe), readSandboxLogs(probe)]);
  return { state, logs };
}

/** The sandbox's state, or undefined when it cannot be read in time. */
export async function readSandboxState(probe: SandboxProbe): Promise<SandboxState | undefined> {
  const signal = AbortSignal.timeout(DIAGNOSE_TIMEOUT_MS);
  return raceSignal(probe.sandboxState({ signal }), signal).catch(() => undefined);
}

/** The sandbox's last log lines (at most `MAX_LOG_CHARS`), or undefined when unreadable in time. */
export async function readSandboxLogs(probe: SandboxProbe): Promise<string | undefined> {
  const signal = AbortSignal.timeout(DIAGNOSE_TIMEOUT_MS);
  try {
    const logs = await raceSignal(
      probe.sandboxLogs({ signal, tailLines: probe.logTailLines }),
      signal,
    );
    return logs.length > MAX_LOG_CHARS ? `…${logs.slice(-MAX_LOG_CHARS)}` : logs;
  } catch {
    return undefined;
  }
}
