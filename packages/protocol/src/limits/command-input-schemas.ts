import { z } from 'zod';
import {
  checkCommandEnvironment,
  checkCommandText,
  checkEnvironmentName,
  MAX_COMMAND_TIMEOUT_SECONDS,
  MAX_PATH_BYTES,
} from './command-input-limits.js';
import { utf8ByteLength } from './utf8-byte-length.js';

/** A command text: not empty, no NUL, at most `MAX_COMMAND_BYTES` UTF-8 bytes. */
export const commandTextSchema = z
  .string()
  .min(1)
  .superRefine((command, context) => {
    const problem = checkCommandText(command);
    if (problem) context.addIssue({ code: 'custom', message: `command ${problem.reason}` });
  });

/** A client path: not empty, no NUL, at most `MAX_PATH_BYTES` UTF-8 bytes. */
export const clientPathSchema = z
  .string()
  .min(1)
  .refine((value) => !value.includes('\0'), 'Path must not contain NUL bytes')
  .refine(
    (value) => utf8ByteLength(value) <= MAX_PATH_BYTES,
    `Path must be at most ${MAX_PATH_BYTES} bytes`,
  );

/** A command timeout in seconds: positive, fractions allowed, at most about 24.8 days. */
export const commandTimeoutSchema = z.number().positive().max(MAX_COMMAND_TIMEOUT_SECONDS);

/** Variables added to a command's environment, within the limits of `checkCommandEnvironment`. */
export const commandEnvironmentSchema = z
  .record(z.string(), z.string())
  .superRefine((env, context) => {
    const problem = checkCommandEnvironment(env);
    if (!problem) return;
    const [, name] = problem.field.split(/\.(.*)/s);
    context.addIssue({
      code: 'custom',
      message: `${problem.field} ${problem.reason}`,
      ...(name === undefined ? {} : { path: [name] }),
    });
  });

/**
 * An environment variable's name by the rule of `checkEnvironmentName` (not empty, no `=`, no
 * NUL). A refused name stops there: checks chained after this one (stricter rules) do not run.
 */
export const environmentNameSchema = z.string().superRefine((name, context) => {
  const reason = checkEnvironmentName(name);
  if (reason) context.addIssue({ code: 'custom', message: reason, continue: false });
});
