import { checkCommandEnvironment } from '@agent-workspace/protocol/constants';
import { abortedError } from '../errors/aborted-error.js';
import { invalidArgument } from '../errors/invalid-argument.js';
import { positiveOption } from '../errors/positive-option.js';
import type { ExecuteCommandOptions } from './workspace.js';

/** Default command timeout of every workspace type, in milliseconds. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;

/** A command after `BaseWorkspace` validated it and resolved its paths. */
export interface CommandRequest {
  command: string;
  /** Absolute working directory inside the workspace. */
  cwd: string;
  timeoutMs: number;
  env: Record<string, string>;
  signal?: AbortSignal | undefined;
  onStdout?: ((chunk: string) => void) | undefined;
  onStderr?: ((chunk: string) => void) | undefined;
  outputMasker?: ExecuteCommandOptions['outputMasker'];
}

/**
 * Checks the arguments of `executeCommand` (a non-empty `command`, a positive `timeoutMs`, a
 * valid `env`, a signal not yet aborted) and resolves `cwd` (default `.`) with `resolveCwd`.
 * Throws `INVALID_ARGUMENT` naming the field, or `ABORTED`.
 */
export function commandRequestOf(
  command: string,
  options: ExecuteCommandOptions,
  resolveCwd: (cwd: string) => string,
): CommandRequest {
  if (typeof command !== 'string' || command.trim().length === 0) {
    throw invalidArgument('command', 'must be a non-empty string');
  }
  const timeoutMs = positiveOption(options.timeoutMs, DEFAULT_COMMAND_TIMEOUT_MS, 'timeoutMs');
  const env = options.env ?? {};
  const problem = checkCommandEnvironment(env);
  if (problem) throw invalidArgument(problem.field, problem.reason);
  if (options.signal?.aborted) throw abortedError(options.signal);
  return {
    command,
    cwd: resolveCwd(options.cwd ?? '.'),
    timeoutMs,
    env,
    signal: options.signal,
    onStdout: options.onStdout,
    onStderr: options.onStderr,
    outputMasker: options.outputMasker,
  };
}
