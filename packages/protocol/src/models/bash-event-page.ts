import { z } from 'zod';
import { type BashEvent, bashEventFromWire, bashEventWireSchema } from './bash-event.js';

/** Wire shape of a page of `GET /api/bash/bash_events/search`. */
export const bashEventPageWireSchema = z.object({
  items: z.array(bashEventWireSchema),
  next_page_id: z.string().nullable().default(null),
});

/** Wire JSON of a {@link BashEventPage}. */
export type BashEventPageWire = z.infer<typeof bashEventPageWireSchema>;

/** One page of bash events. */
export interface BashEventPage {
  items: BashEvent[];
  /** Pass as `pageId` to get the next page; `null` on the last page. Opaque (a file name). */
  nextPageId: string | null;
}

/** Parses wire JSON into a {@link BashEventPage}. Throws a `ZodError` naming the bad field. */
export function bashEventPageFromWire(json: unknown): BashEventPage {
  const wire = bashEventPageWireSchema.parse(json);
  return { items: wire.items.map(bashEventFromWire), nextPageId: wire.next_page_id };
}
