import { z } from 'zod';
import { hexIdSchema } from '../ids/hex-id.js';
import { normalizeWireTimestamp, wireTimestampSchema } from '../time/wire-timestamp.js';

/** Wire shape of the `BashOutput` event: a chunk of a command's output, or its completion. */
export const bashOutputWireSchema = z.object({
  kind: z.literal('BashOutput'),
  id: hexIdSchema,
  timestamp: wireTimestampSchema,
  command_id: hexIdSchema,
  order: z.number().int().nonnegative().default(0),
  exit_code: z.number().int().nullable().default(null),
  stdout: z.string().nullable().default(null),
  stderr: z.string().nullable().default(null),
});

/** Wire JSON of a {@link BashOutput}. */
export type BashOutputWire = z.infer<typeof bashOutputWireSchema>;

/** Output of a command. The event with a non-null `exitCode` is the last one for that command. */
export interface BashOutput {
  kind: 'BashOutput';
  /** 32-hex event id. */
  id: string;
  /** UTC time with microseconds, canonical wire form (`2026-08-22T10:00:00.123456Z`). */
  timestamp: string;
  /** 32-hex id of the `BashCommand` this output belongs to. */
  commandId: string;
  /** Position among the command's outputs, from 0; one counter for stdout and stderr. */
  order: number;
  /** `null` while the command runs; `-1` for a timeout or a spawn error. */
  exitCode: number | null;
  /** Standard output in this chunk, or `null` when there is none. */
  stdout: string | null;
  /** Standard error in this chunk, or `null` when there is none. */
  stderr: string | null;
}

/** Parses wire JSON into a {@link BashOutput}. Throws a `ZodError` naming the bad field. */
export function bashOutputFromWire(json: unknown): BashOutput {
  const wire = bashOutputWireSchema.parse(json);
  return {
    kind: wire.kind,
    id: wire.id,
    timestamp: normalizeWireTimestamp(wire.timestamp),
    commandId: wire.command_id,
    order: wire.order,
    exitCode: wire.exit_code,
    stdout: wire.stdout,
    stderr: wire.stderr,
  };
}
