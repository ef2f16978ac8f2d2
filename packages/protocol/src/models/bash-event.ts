import { z } from 'zod';
import { type BashCommand, bashCommandFromWire, bashCommandWireSchema } from './bash-command.js';
import { type BashError, bashErrorFromWire, bashErrorWireSchema } from './bash-error.js';
import { type BashOutput, bashOutputFromWire, bashOutputWireSchema } from './bash-output.js';

/** Wire shape of any bash event, discriminated by `kind`. */
export const bashEventWireSchema = z.discriminatedUnion('kind', [
  bashCommandWireSchema,
  bashOutputWireSchema,
  bashErrorWireSchema,
]);

/** Wire JSON of a {@link BashEvent}. */
export type BashEventWire = z.infer<typeof bashEventWireSchema>;

/** Any bash event; narrow on `kind`. */
export type BashEvent = BashCommand | BashOutput | BashError;

/** Parses wire JSON into a {@link BashEvent}. Throws a `ZodError` naming the bad field. */
export function bashEventFromWire(json: unknown): BashEvent {
  const wire = bashEventWireSchema.parse(json);
  switch (wire.kind) {
    case 'BashCommand':
      return bashCommandFromWire(wire);
    case 'BashOutput':
      return bashOutputFromWire(wire);
    case 'BashError':
      return bashErrorFromWire(wire);
  }
}
