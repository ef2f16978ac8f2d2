import { z } from 'zod';
import { type TerminationReason, terminationReasonSchema } from './termination-reason.js';

/** Wire shape of a finished command (snake_case, as the OpenHands SDK serialises `CommandResult`). */
export const commandResultWireSchema = z.object({
  command: z.string(),
  exit_code: z.number().int(),
  stdout: z.string(),
  stderr: z.string(),
  timeout_occurred: z.boolean(),
  duration_ms: z.number().nonnegative().optional(),
  /** Ours: why the command was ended, when it did not exit on its own. */
  termination_reason: terminationReasonSchema.optional(),
});

/** Wire JSON of a {@link CommandResult}. */
export type CommandResultWire = z.infer<typeof commandResultWireSchema>;

/** The outcome of a command. A non-zero `exitCode` is a result, not an error. */
export interface CommandResult {
  /** The command line as it was run. */
  command: string;
  /** Exit code of the process: `-1` when it timed out, `128 + n` when signal `n` killed it. */
  exitCode: number;
  /** Captured standard output (UTF-8, invalid bytes replaced). */
  stdout: string;
  /** Captured standard error (UTF-8, invalid bytes replaced). */
  stderr: string;
  /** True when the command was stopped because its timeout elapsed. */
  timeoutOccurred: boolean;
  /** Wall time from spawn to exit, in milliseconds. */
  durationMs: number;
  /**
   * Why the command was ended, when it did not exit on its own (absent then): `timeout`,
   * `oom` (an exit of 137 while the memory cgroup counted an OOM kill), `limit`, `signal`.
   */
  terminationReason?: TerminationReason | undefined;
}
