import {
  type BashCommandWire,
  type BashOutputWire,
  bashCommandWireSchema,
  bashOutputWireSchema,
  terminationReasonSchema,
} from '@agent-workspace/protocol';
import { z } from 'zod';

/**
 * One line of the bash event log (JSONL): the event's wire JSON, plus for a command's final
 * `BashOutput` how it ended beyond the exit code (what the exec extension reports), and whether
 * an output is the marker of dropped outputs.
 */
export const persistedBashEventSchema = z.object({
  event: z.discriminatedUnion('kind', [bashCommandWireSchema, bashOutputWireSchema]),
  exit: z
    .object({
      timeout_occurred: z.boolean(),
      duration_ms: z.number().nonnegative(),
      termination_reason: terminationReasonSchema.optional(),
    })
    .optional(),
  /** Set on the output that stands for a command's dropped oldest outputs: how many bytes went. */
  marker: z.object({ dropped_bytes: z.number().int().nonnegative() }).optional(),
});

/** A parsed line of the bash event log. */
export type PersistedBashEvent = z.infer<typeof persistedBashEventSchema>;

/** A stored bash event: a command or one of its outputs, in wire form. */
export type StoredEventWire = BashCommandWire | BashOutputWire;
