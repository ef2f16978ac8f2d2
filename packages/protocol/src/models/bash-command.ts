import { z } from 'zod';
import { hexIdSchema } from '../ids/hex-id.js';
import { normalizeWireTimestamp, wireTimestampSchema } from '../time/wire-timestamp.js';
import { DEFAULT_BASH_TIMEOUT_SECONDS } from './execute-bash-request.js';

/**
 * Wire shape of the `BashCommand` event: a command the server accepted. Parsing is lenient about
 * `timeout` because OpenHands records whatever integer it was sent (even `0`).
 */
export const bashCommandWireSchema = z.object({
  kind: z.literal('BashCommand'),
  id: hexIdSchema,
  timestamp: wireTimestampSchema,
  command: z.string(),
  cwd: z.string().nullable().default(null),
  timeout: z.number().default(DEFAULT_BASH_TIMEOUT_SECONDS),
});

/** Wire JSON of a {@link BashCommand}. */
export type BashCommandWire = z.infer<typeof bashCommandWireSchema>;

/** A command the server accepted; its output arrives as `BashOutput` events with its `id`. */
export interface BashCommand {
  kind: 'BashCommand';
  /** 32-hex event id; outputs refer to it as `commandId`. */
  id: string;
  /** UTC time with microseconds, canonical wire form (`2026-08-22T10:00:00.123456Z`). */
  timestamp: string;
  /** The command line. */
  command: string;
  /** Working directory it ran in; `null` means the server's default. */
  cwd: string | null;
  /** Seconds before it is killed. */
  timeoutSeconds: number;
}

/** Parses wire JSON into a {@link BashCommand}. Throws a `ZodError` naming the bad field. */
export function bashCommandFromWire(json: unknown): BashCommand {
  const wire = bashCommandWireSchema.parse(json);
  return {
    kind: wire.kind,
    id: wire.id,
    timestamp: normalizeWireTimestamp(wire.timestamp),
    command: wire.command,
    cwd: wire.cwd,
    timeoutSeconds: wire.timeout,
  };
}
