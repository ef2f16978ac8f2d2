import { z } from 'zod';
import { hexIdSchema } from '../ids/hex-id.js';
import { normalizeWireTimestamp, wireTimestampSchema } from '../time/wire-timestamp.js';

/** Wire shape of the `BashError` event, sent on `/sockets/bash-events` when a request fails. */
export const bashErrorWireSchema = z.object({
  kind: z.literal('BashError'),
  id: hexIdSchema,
  timestamp: wireTimestampSchema,
  code: z.string(),
  detail: z.string(),
});

/** Wire JSON of a {@link BashError}. */
export type BashErrorWire = z.infer<typeof bashErrorWireSchema>;

/** A failed bash request on the websocket (e.g. an invalid `ExecuteBashRequest` frame). */
export interface BashError {
  kind: 'BashError';
  /** 32-hex event id. */
  id: string;
  /** UTC time with microseconds, canonical wire form (`2026-08-22T10:00:00.123456Z`). */
  timestamp: string;
  /** Error class name, e.g. `ValueError`. */
  code: string;
  /** Human-readable explanation. */
  detail: string;
}

/** Parses wire JSON into a {@link BashError}. Throws a `ZodError` naming the bad field. */
export function bashErrorFromWire(json: unknown): BashError {
  const wire = bashErrorWireSchema.parse(json);
  return {
    kind: wire.kind,
    id: wire.id,
    timestamp: normalizeWireTimestamp(wire.timestamp),
    code: wire.code,
    detail: wire.detail,
  };
}
