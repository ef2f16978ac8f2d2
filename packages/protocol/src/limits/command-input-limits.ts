import { utf8ByteLength } from './utf8-byte-length.js';

/**
 * Largest command text in UTF-8 bytes: `bash -c <command>` passes it as one argument, and Linux
 * refuses any single argument or environment string over 128 KiB (`MAX_ARG_STRLEN`, NUL included)
 * with `E2BIG`, so a longer command could never run.
 */
export const MAX_COMMAND_BYTES = 128 * 1024 - 1;

/** Most environment variables a request may add to a command. */
export const MAX_ENV_VARIABLES = 1024;

/**
 * Largest sum of the `NAME=value` entries (UTF-8 bytes, one NUL each) a request may add to a
 * command. Arguments and environment share the kernel's `ARG_MAX` (2 MiB with the default 8 MiB
 * stack), and the server's own environment needs its share.
 */
export const MAX_ENV_BYTES = 256 * 1024;

/** Longest path a client may send, in UTF-8 bytes (Linux `PATH_MAX`). */
export const MAX_PATH_BYTES = 4096;

/** Longest command timeout in seconds: about 24.8 days, the longest delay a Node timer takes. */
export const MAX_COMMAND_TIMEOUT_SECONDS = 2_147_483;

/** What is wrong with a command input, and where: `field` is e.g. `command` or `env.PATH`. */
export interface CommandInputProblem {
  field: string;
  reason: string;
}

/** Why `command` cannot run (NUL bytes, over {@link MAX_COMMAND_BYTES}), or `undefined`. */
export function checkCommandText(command: string): CommandInputProblem | undefined {
  if (command.includes('\0')) return { field: 'command', reason: 'must not contain NUL bytes' };
  const bytes = utf8ByteLength(command);
  if (bytes > MAX_COMMAND_BYTES) {
    return {
      field: 'command',
      reason: `is ${bytes} bytes; the limit is ${MAX_COMMAND_BYTES} (Linux refuses longer arguments)`,
    };
  }
  return undefined;
}

/** Why `name` cannot name an environment variable (it is empty, or holds `=` or NUL), or `undefined`. */
export function checkEnvironmentName(name: string): string | undefined {
  if (name === '' || name.includes('=') || name.includes('\0')) {
    return 'is not a valid variable name (empty, or holds = or NUL)';
  }
  return undefined;
}

/**
 * Why the variables a request adds cannot be passed to a command, or `undefined`: a name
 * {@link checkEnvironmentName} refuses, a value with NUL, an entry over
 * {@link MAX_COMMAND_BYTES}, more than {@link MAX_ENV_VARIABLES} names, or more than
 * {@link MAX_ENV_BYTES} in all.
 */
export function checkCommandEnvironment(
  env: Readonly<Record<string, string>>,
): CommandInputProblem | undefined {
  const names = Object.keys(env);
  if (names.length > MAX_ENV_VARIABLES) {
    return {
      field: 'env',
      reason: `has ${names.length} variables; the limit is ${MAX_ENV_VARIABLES}`,
    };
  }
  let total = 0;
  for (const name of names) {
    const value = env[name];
    const field = `env.${name}`;
    const nameProblem = checkEnvironmentName(name);
    if (nameProblem) return { field, reason: nameProblem };
    if (typeof value !== 'string')
      return { field, reason: `must be a string, got ${typeof value}` };
    if (value.includes('\0')) return { field, reason: 'must not contain NUL bytes' };
    const bytes = utf8ByteLength(name) + 1 + utf8ByteLength(value);
    if (bytes > MAX_COMMAND_BYTES) {
      return { field, reason: `is ${bytes} bytes; the limit is ${MAX_COMMAND_BYTES} per variable` };
    }
    total += bytes + 1;
  }
  if (total > MAX_ENV_BYTES) {
    return { field: 'env', reason: `is ${total} bytes in all; the limit is ${MAX_ENV_BYTES}` };
  }
  return undefined;
}
