import { shellQuote } from '../internal/process/shell-quote.js';

/** Variable that marks every process of a polled command, so it can be found and killed. */
export const COMMAND_TOKEN_VARIABLE = 'AGENT_WORKSPACE_COMMAND_TOKEN';

/** Input of {@link wrapPolledCommand}. */
export interface WrapPolledCommandOptions {
  command: string;
  env: Record<string, string>;
  /** Random hex marking the command's processes. */
  token: string;
}

/**
 * The command line sent to `start_bash_command`, which has no `env` field and, on OpenHands,
 * runs `/bin/sh`: `exec env -- TOKEN=… NAME=value … bash -c '<command>'`. The `exec` keeps the
 * pid (and process group) the server spawned; bash is located before `env` applies the caller's
 * variables, so a `PATH` override cannot hide it; and the token variable, inherited by every
 * descendant, lets {@link killTokenScript} find the whole tree. `env` is as `BaseWorkspace`
 * checked it (`checkCommandEnvironment`).
 */
export function wrapPolledCommand({ command, env, token }: WrapPolledCommandOptions): string {
  const assignments = [`${COMMAND_TOKEN_VARIABLE}=${token}`];
  for (const [name, value] of Object.entries(env)) assignments.push(`${name}=${value}`);
  const words = assignments.map(shellQuote).join(' ');
  return `exec env -- ${words} "$(command -v bash || echo bash)" -c ${shellQuote(command)}`;
}
