import { z } from 'zod';
import { wireTimestampSchema } from '../time/wire-timestamp.js';

const eventSourceSchema = z.enum(['agent', 'user', 'environment', 'hook']);

/** Who produced a conversation event. */
export type EventSource = z.infer<typeof eventSourceSchema>;

/**
 * The fields every conversation event has, for spreading into an event's schema: `id` (OpenHands
 * writes a dashed UUID; any non-empty string is accepted), `timestamp` (ISO-8601; OpenHands
 * writes server-local time without an offset) and `source`, which falls back to the event
 * kind's OpenHands default when absent.
 */
export function conversationEventBaseShape(defaultSource: EventSource) {
  return {
    id: z.string().min(1),
    timestamp: wireTimestampSchema,
    source: eventSourceSchema.default(defaultSource),
  };
}
