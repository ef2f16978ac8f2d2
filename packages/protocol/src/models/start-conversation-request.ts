import { z } from 'zod';
import { confirmationPolicyWireSchema } from './confirmation-policy.js';
import { securityAnalyzerWireSchema } from './security-analyzer.js';
import { sendMessageRequestWireSchema } from './send-message-request.js';

/** Largest `max_iterations` a start request may ask for. */
export const MAX_CONVERSATION_ITERATIONS = 10_000;

/** Longest conversation title. */
export const MAX_CONVERSATION_TITLE_CHARS = 200;

/**
 * The workspace of a start request: OpenHands' Python SDK sends
 * `{"kind":"LocalWorkspace","working_dir":…}`, the official TypeScript client
 * `{"type":"local","working_dir":…}`.
 */
export const conversationWorkspaceWireSchema = z.looseObject({
  kind: z.literal('LocalWorkspace').optional(),
  type: z.literal('local').optional(),
  working_dir: z.string().min(1).max(4096),
});

/** Wire JSON of a conversation's workspace. */
export type ConversationWorkspaceWire = z.infer<typeof conversationWorkspaceWireSchema>;

/**
 * Wire shape of OpenHands' `StartConversationRequest` (`POST /api/conversations`): the agent's
 * JSON (`llm`, `tools: [{name}]`), the workspace, and run settings, among them the
 * `confirmation_policy` (default `NeverConfirm`) and `security_analyzer` (default none). Loose:
 * OpenHands' many other fields are accepted and ignored.
 */
export const startConversationRequestWireSchema = z.looseObject({
  workspace: conversationWorkspaceWireSchema,
  agent: z.looseObject({
    kind: z.string().optional(),
    llm: z.looseObject({ kind: z.string().optional() }),
    tools: z.array(z.looseObject({ name: z.string().min(1) })).default([]),
  }),
  conversation_id: z.uuid().nullish(),
  initial_message: sendMessageRequestWireSchema.nullish(),
  max_iterations: z.number().int().min(1).max(MAX_CONVERSATION_ITERATIONS).default(500),
  stuck_detection: z.boolean().default(true),
  title: z.string().max(MAX_CONVERSATION_TITLE_CHARS).nullish(),
  tags: z.record(z.string(), z.string().max(256)).default({}),
  confirmation_policy: confirmationPolicyWireSchema.default({ kind: 'NeverConfirm' }),
  security_analyzer: securityAnalyzerWireSchema.nullish(),
});

/** Wire JSON of a start request. */
export type StartConversationRequestWire = z.infer<typeof startConversationRequestWireSchema>;
