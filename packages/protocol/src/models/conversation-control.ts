import { z } from 'zod';
import { conversationEventBaseShape } from './conversation-event-base.js';

/** Longest `title` of a conversation (OpenHands' limit). */
export const MAX_CONVERSATION_TITLE_LENGTH = 200;
/** Most events one `Condensation` forgets (a condensation of more is refused as corrupt). */
export const MAX_FORGOTTEN_EVENT_IDS = 100_000;

/**
 * Wire shape of OpenHands' `Condensation` event: the history given to the model forgets the
 * events of `forgotten_event_ids`; with `summary` and `summary_offset`, a user message holding
 * the summary takes their place at that offset of what is left. The events stay in the log.
 */
export const condensationEventWireSchema = z.looseObject({
  kind: z.literal('Condensation'),
  ...conversationEventBaseShape('environment'),
  forgotten_event_ids: z.array(z.string().min(1)).max(MAX_FORGOTTEN_EVENT_IDS).default([]),
  summary: z.string().nullable().default(null),
  summary_offset: z.number().int().min(0).nullable().default(null),
  llm_response_id: z.string(),
});

/** Wire JSON of a condensation. */
export type CondensationEventWire = z.infer<typeof condensationEventWireSchema>;

/**
 * Wire shape of OpenHands' `CondensationRequest` event: someone asked for the history to be
 * condensed (`POST …/condense`); the agent's condenser answers it at its next step.
 */
export const condensationRequestEventWireSchema = z.looseObject({
  kind: z.literal('CondensationRequest'),
  ...conversationEventBaseShape('environment'),
});

/** Wire JSON of a condensation request. */
export type CondensationRequestEventWire = z.infer<typeof condensationRequestEventWireSchema>;

/**
 * Wire shape of OpenHands' `InterruptEvent`: the user interrupted the run, cancelling the model
 * call or tool in flight (unlike `PauseEvent`, which takes effect between steps).
 */
export const interruptEventWireSchema = z.looseObject({
  kind: z.literal('InterruptEvent'),
  ...conversationEventBaseShape('user'),
});

/** Wire JSON of an interrupt event. */
export type InterruptEventWire = z.infer<typeof interruptEventWireSchema>;

/**
 * Wire shape of `POST /api/conversations/{id}/fork` (OpenHands' `ForkConversationRequest`):
 * the fork's `id` (new when absent), `title`, `tags`, whether its stats start fresh
 * (`reset_metrics`, default true) and the last event it copies (`from_event_id`, default all).
 */
export const forkConversationRequestWireSchema = z.looseObject({
  id: z.uuid().nullable().optional(),
  title: z.string().min(1).max(MAX_CONVERSATION_TITLE_LENGTH).nullable().optional(),
  tags: z.record(z.string(), z.string().max(256)).nullable().optional(),
  reset_metrics: z.boolean().default(true),
  from_event_id: z.string().min(1).max(200).nullable().optional(),
});

/** Wire JSON of a fork request. */
export type ForkConversationRequestWire = z.infer<typeof forkConversationRequestWireSchema>;
