import { z } from 'zod';
import { hexIdInputSchema, normalizeHexId } from '../ids/hex-id.js';
import { normalizeWireTimestamp, wireTimestampSchema } from '../time/wire-timestamp.js';

/** How bash event search results are ordered. */
export const bashEventSortOrderSchema = z.enum(['TIMESTAMP', 'TIMESTAMP_DESC']);

/** `TIMESTAMP` (oldest first) or `TIMESTAMP_DESC`. */
export type BashEventSortOrder = z.infer<typeof bashEventSortOrderSchema>;

/**
 * Query parameters of `GET /api/bash/bash_events/search`. Values arrive as strings, so numbers
 * are coerced; `command_id__eq` takes a dashed or undashed UUID.
 */
export const bashEventSearchQueryWireSchema = z.object({
  kind__eq: z.enum(['BashCommand', 'BashOutput']).optional(),
  command_id__eq: hexIdInputSchema.optional(),
  timestamp__gte: wireTimestampSchema.optional(),
  timestamp__lt: wireTimestampSchema.optional(),
  order__gt: z.coerce.number().int().optional(),
  sort_order: bashEventSortOrderSchema.default('TIMESTAMP'),
  page_id: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(100).default(100),
});

/** Wire form of a {@link BashEventSearchQuery} (numbers as numbers; see {@link bashEventSearchQueryToSearchParams}). */
export type BashEventSearchQueryWire = z.infer<typeof bashEventSearchQueryWireSchema>;

/** Filters, order and paging for a bash event search. */
export interface BashEventSearchQuery {
  /** Only events of this kind. */
  kindEq?: 'BashCommand' | 'BashOutput' | undefined;
  /** Only outputs of this command (32-hex); the `BashCommand` itself is not returned. */
  commandIdEq?: string | undefined;
  /** Only events at or after this time (canonical UTC wire timestamp). */
  timestampGte?: string | undefined;
  /** Only events before this time (canonical UTC wire timestamp). */
  timestampLt?: string | undefined;
  /** Only outputs with a greater `order`; events without one (commands) pass. */
  orderGt?: number | undefined;
  /** Result order; `TIMESTAMP` by default. */
  sortOrder: BashEventSortOrder;
  /** The `nextPageId` of the previous page. */
  pageId?: string | undefined;
  /** Page size, 1-100; 100 by default. */
  limit: number;
}

/** Parses query parameters into a {@link BashEventSearchQuery}. Throws a `ZodError` naming the bad field. */
export function bashEventSearchQueryFromWire(json: unknown): BashEventSearchQuery {
  const wire = bashEventSearchQueryWireSchema.parse(json);
  return {
    ...(wire.kind__eq !== undefined ? { kindEq: wire.kind__eq } : {}),
    ...(wire.command_id__eq !== undefined
      ? { commandIdEq: normalizeHexId(wire.command_id__eq) }
      : {}),
    ...(wire.timestamp__gte !== undefined
      ? { timestampGte: normalizeWireTimestamp(wire.timestamp__gte) }
      : {}),
    ...(wire.timestamp__lt !== undefined
      ? { timestampLt: normalizeWireTimestamp(wire.timestamp__lt) }
      : {}),
    ...(wire.order__gt !== undefined ? { orderGt: wire.order__gt } : {}),
    sortOrder: wire.sort_order,
    ...(wire.page_id !== undefined ? { pageId: wire.page_id } : {}),
    limit: wire.limit,
  };
}

/** A {@link BashEventSearchQuery} in its wire form, leaving out absent filters. */
function bashEventSearchQueryToWire(query: BashEventSearchQuery): BashEventSearchQueryWire {
  return {
    ...(query.kindEq !== undefined ? { kind__eq: query.kindEq } : {}),
    ...(query.commandIdEq !== undefined ? { command_id__eq: query.commandIdEq } : {}),
    ...(query.timestampGte !== undefined ? { timestamp__gte: query.timestampGte } : {}),
    ...(query.timestampLt !== undefined ? { timestamp__lt: query.timestampLt } : {}),
    ...(query.orderGt !== undefined ? { order__gt: query.orderGt } : {}),
    sort_order: query.sortOrder,
    ...(query.pageId !== undefined ? { page_id: query.pageId } : {}),
    limit: query.limit,
  };
}

/** Serialises a {@link BashEventSearchQuery} as URL query parameters. */
export function bashEventSearchQueryToSearchParams(query: BashEventSearchQuery): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(bashEventSearchQueryToWire(query))) {
    params.set(key, String(value));
  }
  return params;
}
