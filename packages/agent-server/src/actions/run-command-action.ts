import os from 'node:os';
import {
  type CmdOutputObservationWire,
  type CmdRunArgs,
  errorObservation,
  type ObservationWire,
} from '@agent-workspace/protocol';
import type { ServerContext } from '../app/server-context.js';

/**
 * OpenHands' `run`: the command runs through the bash service (its sandbox, limits and memory
 * watch, as `execute_bash_command`) and its whole captured output comes back as a
 * `CmdOutputObservation`. Each `run` is its own process: `is_input` (typing into a command left
 * running) is answered with an `error` observation.
 */
export async function runCommandAction(
  context: ServerContext,
  args: CmdRunArgs,
  timeoutSeconds: number,
  signal: AbortSignal,
): Promise<ObservationWire> {
  if (args.is_input) {
    return errorObservation(
      'is_input is not supported here: every run is a process of its own that ends with its action; send input through the exec stream instead.',
      'NOT_SUPPORTED',
    );
  }
  const started = await context.bash.startCommand({
    command: args.command,
    cwd: args.cwd ?? undefined,
    timeoutSeconds,
    captureOutput: true,
    detached: false,
  });
  // The command is ended (after the orphan grace) once the client that asked for it is gone.
  signal.addEventListener('abort', started.release, { once: true });
  const { result } = await started.completion;
  signal.removeEventListener('abort', started.release);
  started.release();
  const output = [result.stdout, result.stderr].filter(Boolean).join('');
  const suffix = result.timeoutOccurred
    ? `\n[The command timed out after ${timeoutSeconds} seconds and was stopped.]`
    : `\n[The command completed with exit code ${result.exitCode}.]`;
  const observation: CmdOutputObservationWire = {
    observation: 'run',
    content: output,
    message: `Command \`${args.command}\` executed with exit code ${result.exitCode}.`,
    extras: {
      command: args.command,
      metadata: {
        exit_code: result.exitCode,
        pid: started.pid ?? -1,
        username: os.userInfo().username,
        hostname: os.hostname(),
        working_dir: started.event.cwd ?? context.options.workingDir,
        py_interpreter_path: null,
        prefix: '',
        suffix,
      },
      hidden: args.hidden,
    },
    success: result.exitCode === 0,
  };
  return observation;
}
