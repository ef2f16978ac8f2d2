import type { CommandResult } from '@agent-workspace/protocol';
import type { RunLocalCommandOptions } from './run-local-command-options.js';
import { startLocalCommand } from './start-local-command.js';

/**
 * Runs a command with `bash -c` on this machine, in its own process group.
 *
 * - Resolves when bash exits, reading for at most `OUTPUT_DRAIN_MS` (100 ms) more: a
 *   backgrounded process that keeps the pipes open neither delays the result nor gets killed.
 * - On timeout or abort, the whole process group gets SIGTERM, then SIGKILL after a grace.
 *   A timeout resolves with `timeoutOccurred: true` and `exitCode: -1`; an abort rejects with
 *   `ABORTED`. Death by a signal otherwise gives `exitCode` 128 + the signal number, and
 *   `terminationReason` says why the command ended when it did not exit on its own: `timeout`,
 *   `oom` (a kill while the memory cgroup counted an OOM kill), `limit` (`SIGXCPU`/`SIGXFSZ`)
 *   or `signal`.
 * - Output is decoded as UTF-8 (invalid bytes become U+FFFD); each stream keeps its last
 *   `maxOutputBytes` bytes, prefixed with `[... N bytes truncated ...]` when cut.
 * - Stdin is closed; use {@link startLocalCommand} to write to it or to signal the command.
 *
 * @throws WorkspaceError `INVALID_CWD` when `cwd` is missing or not a directory, `SPAWN_ERROR`
 * when bash cannot start (`details.errno`), `SANDBOX_EXITED` when the sandbox is closed or
 * died, `ABORTED` when `signal` fires, `INVALID_ARGUMENT`
 * for a bad cap, a command over `MAX_COMMAND_BYTES`, or NUL bytes or too much in the env.
 * An error thrown by `onStdout`/`onStderr` stops the command and rejects with that error.
 */
export async function runLocalCommand(options: RunLocalCommandOptions): Promise<CommandResult> {
  return startLocalCommand(options).result;
}
