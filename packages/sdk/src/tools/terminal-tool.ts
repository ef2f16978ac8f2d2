import {
  checkCommandText,
  MAX_COMMAND_TIMEOUT_SECONDS,
  utf8ByteLength,
} from '@agent-workspace/protocol';
import { z } from 'zod';
import type { Tool, ToolContext, ToolObservation } from './tool.js';
import { truncateForModel } from './truncate-for-model.js';
import { type TerminalState, wrapTerminalCommand } from './wrap-terminal-command.js';

/** LLM-facing name of {@link TerminalTool}. */
export const TERMINAL_TOOL_NAME = 'terminal';
/** Seconds a command may run when the call gives no `timeout`; then it is killed. */
export const DEFAULT_TERMINAL_TIMEOUT_SECONDS = 120;
/**
 * Largest `export -p` text a terminal keeps between calls (UTF-8 bytes). It travels in one
 * environment variable, which Linux caps at 128 KiB; a larger environment is not kept.
 */
export const MAX_TERMINAL_STATE_BYTES = 64 * 1024;

const RESET_TEXT =
  'Terminal session has been reset. All previous environment variables and session state have been cleared.';

const DESCRIPTION = `Execute a bash command in the terminal within a persistent shell session.

### Command Execution
* One command at a time: You can only execute one bash command at a time. If you need to run multiple commands sequentially, use \`&&\` or \`;\`.
* Persistent session: the working directory and exported environment variables (\`export\`, virtual environments) persist across commands. Shell variables that are not exported, functions and aliases do not.
* Timeout: a command is stopped after ${DEFAULT_TERMINAL_TIMEOUT_SECONDS} seconds unless you set a longer \`timeout\` (seconds). A stopped command leaves the working directory and environment as they were before it.
* Shell options: Do NOT use \`set -e\`, \`set -eu\`, or \`set -euo pipefail\`.

### Long-running and interactive commands
* Commands get no standard input and always run to completion or to their timeout; \`is_input\` is not supported. Pipe input in (\`printf 'y\\n' | cmd\`) or use non-interactive flags.
* For commands that may run indefinitely, run them in the background and redirect output to a file, e.g. \`python3 app.py > server.log 2>&1 &\`.

### Best Practices
* Verify a parent directory exists before creating files or directories.
* Prefer absolute paths and avoid excessive use of \`cd\`.

### Output Handling
* Standard error is merged into standard output, in the order written.
* Large output is truncated before being returned (\`<response clipped ...>\`).

### Terminal Reset
* Set \`reset=true\` to start a fresh session: the working directory and environment variables are forgotten.`;

/** Arguments of {@link TerminalTool}, as OpenHands' `TerminalAction`. */
export const terminalArgsSchema = z.object({
  command: z
    .string()
    .describe(
      'The bash command to execute. You can only execute one command at a time; chain commands with `&&` or `;`.',
    ),
  is_input: z
    .boolean()
    .optional()
    .describe(
      'If True, the command is an input to the running process. Not supported here: commands get no standard input.',
    ),
  timeout: z
    .number()
    .positive()
    .max(MAX_COMMAND_TIMEOUT_SECONDS)
    .nullish()
    .describe(
      `Optional. Maximum time in seconds the command may run before it is stopped; default ${DEFAULT_TERMINAL_TIMEOUT_SECONDS}. Use a higher value for long commands (installation, tests).`,
    ),
  reset: z
    .boolean()
    .optional()
    .describe(
      'If True, reset the terminal: all previously set environment variables and the working directory are forgotten. Cannot be used with is_input=True.',
    ),
});

/** Arguments of {@link TerminalTool}. */
export type TerminalArgs = z.infer<typeof terminalArgsSchema>;

/** Options of {@link TerminalTool}. */
export interface TerminalToolOptions {
  /** Seconds a command may run when the call gives no `timeout`; default {@link DEFAULT_TERMINAL_TIMEOUT_SECONDS}. */
  defaultTimeoutSeconds?: number | undefined;
}

/**
 * OpenHands' `terminal` tool on the workspace contract. Each call is one `executeCommand`; the
 * working directory and exported variables are carried from call to call by
 * {@link wrapTerminalCommand}, so the session feels persistent. The observation text is the
 * output (stderr merged into stdout, in order), then `[The command completed with exit code N.]`
 * or a timeout notice, then the working directory; `content` is
 * `{ command, exit_code, output, timeout }` with the full output. Calls on one instance run one
 * at a time.
 */
export class TerminalTool implements Tool<TerminalArgs> {
  readonly name = TERMINAL_TOOL_NAME;
  readonly description = DESCRIPTION;
  readonly parameters = terminalArgsSchema;
  readonly #defaultTimeoutSeconds: number;
  #state: TerminalState | undefined;
  /** The exports the last command's shell started with: the next one restores the difference. */
  #fresh: string | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor({
    defaultTimeoutSeconds = DEFAULT_TERMINAL_TIMEOUT_SECONDS,
  }: TerminalToolOptions = {}) {
    this.#defaultTimeoutSeconds = defaultTimeoutSeconds;
  }

  /** The working directory the next command starts in; `undefined` for the workspace's own. */
  get cwd(): string | undefined {
    return this.#state?.cwd;
  }

  execute(args: TerminalArgs, context: ToolContext): Promise<ToolObservation> {
    const run = this.#queue.then(() => this.#execute(args, context));
    this.#queue = run.catch(() => {});
    return run;
  }

  async #execute(args: TerminalArgs, context: ToolContext): Promise<ToolObservation> {
    const command = args.command.trim();
    if (args.is_input) {
      return refusal(
        command,
        'Cannot send input to a running process (`is_input`): commands run through the workspace, which gives them no standard input, and every command runs to completion or to its timeout, so no process is left waiting. Run the command again with its input piped in (e.g. `printf "y\\n" | command`) or with non-interactive flags.',
      );
    }
    if (args.reset) {
      this.#state = undefined;
      if (command === '') {
        return {
          text: RESET_TEXT,
          content: { command: '[RESET]', exit_code: 0, output: '', timeout: false },
          isError: false,
        };
      }
      const observation = await this.#run(command, args.timeout, context);
      return { ...observation, text: `${RESET_TEXT}\n\n${observation.text}` };
    }
    if (command === '') {
      return refusal(
        command,
        'No command given. There is no running process to read more output from: every command runs to completion or to its timeout. Send a shell command.',
      );
    }
    return this.#run(command, args.timeout, context);
  }

  async #run(
    command: string,
    timeout: number | null | undefined,
    context: ToolContext,
  ): Promise<ToolObservation> {
    const problem = checkCommandText(command);
    if (problem) return refusal(command, `The command ${problem.reason}.`);
    const seconds = timeout ?? this.#defaultTimeoutSeconds;
    const secrets = await context.secrets?.envFor(command, { signal: context.signal });
    const wrapped = wrapTerminalCommand({
      command,
      state: this.#state,
      secrets: secrets?.env,
      fresh: this.#fresh,
    });
    const result = await context.workspace.executeCommand(wrapped.script, {
      env: wrapped.env,
      // Exported secrets stay in the state the epilogue prints after every command.
      outputMasker: context.secrets && (() => context.secrets!.streamMasker()),
      timeoutMs: Math.ceil(seconds * 1000),
      signal: context.signal,
    });
    const { output: stdout, state, fresh, stderr } = wrapped.unwrap(result.stdout, result.stderr);
    this.#fresh = fresh;
    // The command's stderr is merged into stdout; stderr holds only what escaped the wrapper.
    const output = joinOutput(stdout, stderr);
    const notes = (secrets?.failures ?? []).map(
      (failure) => `[Secret ${failure.name} was not set: ${failure.reason}]`,
    );
    // A command stopped by its timeout leaves the session as it was, whether or not its shell
    // managed to record a state while being killed: deterministic for the model.
    if (state !== undefined && !result.timeoutOccurred) {
      const tooLarge =
        state.exports !== undefined && utf8ByteLength(state.exports) > MAX_TERMINAL_STATE_BYTES;
      if (tooLarge) {
        notes.push(
          `[The exported environment variables exceed ${MAX_TERMINAL_STATE_BYTES} bytes and were not kept; the next command starts with the workspace's environment.]`,
        );
      }
      this.#state = { cwd: state.cwd, exports: tooLarge ? undefined : state.exports };
    }
    const exitCode = result.timeoutOccurred ? -1 : result.exitCode;
    const status = result.timeoutOccurred
      ? `[The command timed out after ${seconds} seconds and was stopped, with every process it started; the working directory and environment are as before it. Set a larger \`timeout\` for long commands, or run them in the background with output redirected to a file.]`
      : `[The command completed with exit code ${exitCode}.]`;
    const lines = [status, ...notes];
    if (this.#state !== undefined) lines.push(`[Current working directory: ${this.#state.cwd}]`);
    const shown = truncateForModel(output.trimEnd());
    return {
      text: [...(shown === '' ? [] : [shown]), ...lines].join('\n'),
      content: { command, exit_code: exitCode, output, timeout: result.timeoutOccurred },
      isError: false,
    };
  }
}

/** stdout, then stderr on a line of its own (the two cannot be interleaved after the fact). */
function joinOutput(stdout: string, stderr: string): string {
  if (stderr === '') return stdout;
  if (stdout === '' || stdout.endsWith('\n')) return `${stdout}${stderr}`;
  return `${stdout}\n${stderr}`;
}

function refusal(command: string, text: string): ToolObservation {
  return {
    text,
    content: { command, exit_code: null, output: '', timeout: false },
    isError: true,
  };
}
