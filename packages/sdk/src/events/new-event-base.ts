import { randomUUID } from 'node:crypto';
import { formatWireTimestamp } from '@agent-workspace/protocol';

/** The `id` (a dashed UUID, as OpenHands writes it) and `timestamp` (UTC) of a new event. */
export function newEventBase(): { id: string; timestamp: string } {
  return { id: randomUUID(), timestamp: formatWireTimestamp(new Date()) };
}
