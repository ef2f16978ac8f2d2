// The conversation wire: events, messages, control, state, secrets, stats and the model's settings.
export {
  type ActionEventWire,
  actionEventWireSchema,
} from './action-event.js';
export {
  type AgentErrorEventWire,
  agentErrorEventWireSchema,
} from './agent-error-event.js';
export {
  CONFIRMATION_POLICY_KINDS,
  type ConfirmationPolicyInputWire,
  type ConfirmationPolicyWire,
  type ConfirmationResponseRequestWire,
  confirmationPolicyWireSchema,
  confirmationResponseRequestWireSchema,
  DEFAULT_REJECTION_REASON,
  MAX_REJECTION_REASON_CHARS,
  SECURITY_RISKS,
  type SecurityRisk,
  type SetConfirmationPolicyRequestWire,
  securityRiskSchema,
  setConfirmationPolicyRequestWireSchema,
  type UserRejectObservationWire,
  userRejectObservationWireSchema,
} from './confirmation-policy.js';
export {
  type CondensationEventWire,
  type CondensationRequestEventWire,
  condensationEventWireSchema,
  condensationRequestEventWireSchema,
  type ForkConversationRequestWire,
  forkConversationRequestWireSchema,
  type InterruptEventWire,
  interruptEventWireSchema,
  MAX_CONVERSATION_TITLE_LENGTH,
  MAX_FORGOTTEN_EVENT_IDS,
} from './conversation-control.js';
export {
  AGENT_STUCK,
  type ConversationErrorEventWire,
  conversationErrorEventWireSchema,
  MAX_ITERATIONS_REACHED,
} from './conversation-error-event.js';
export {
  type ConversationEventKind,
  type ConversationEventWire,
  conversationEventWireSchema,
} from './conversation-event.js';
export type { EventSource } from './conversation-event-base.js';
export {
  type ConversationEventPageWire,
  conversationEventPageWireSchema,
} from './conversation-event-page.js';
export {
  CONVERSATION_EXECUTION_STATUSES,
  type ConversationExecutionStatus,
} from './conversation-execution-status.js';
export {
  agentFinalResponseWireSchema,
  type ConversationInfoWire,
  type ConversationPageWire,
  conversationInfoWireSchema,
  conversationPageWireSchema,
  type UpdateConversationRequestWire,
  updateConversationRequestWireSchema,
} from './conversation-info.js';
export {
  type AskAgentRequestWire,
  type AskAgentResponseWire,
  askAgentRequestWireSchema,
  askAgentResponseWireSchema,
  MAX_ASK_AGENT_QUESTION_LENGTH,
  type SwitchLlmRequestWire,
  switchLlmRequestWireSchema,
} from './conversation-llm-control.js';
export {
  type LookupSecretWire,
  lookupSecretWireSchema,
  MAX_CONVERSATION_SECRETS,
  MAX_LOOKUP_SECRET_HEADER_NAME_CHARS,
  MAX_LOOKUP_SECRET_HEADER_VALUE_CHARS,
  MAX_LOOKUP_SECRET_HEADERS,
  MAX_LOOKUP_SECRET_URL_CHARS,
  MAX_SECRET_DESCRIPTION_CHARS,
  MAX_SECRET_NAME_CHARS,
  MAX_SECRET_VALUE_BYTES,
  MIN_MASKED_SECRET_CHARS,
  RESERVED_SECRET_NAME_PREFIXES,
  RESERVED_SECRET_NAMES,
  SECRET_MASK,
  SECRET_NAME_PATTERN,
  type SecretSourceWire,
  type StaticSecretWire,
  secretNameProblem,
  secretSourceInputWireSchema,
  secretsMapWireSchema,
  staticSecretWireSchema,
  type UpdateSecretsRequestWire,
  updateSecretsRequestWireSchema,
} from './conversation-secrets.js';
export {
  CONVERSATION_STATE_KEYS,
  type ConversationStateUpdateEventWire,
  conversationStateUpdateEventWireSchema,
} from './conversation-state-update-event.js';
export {
  type ConversationStatsSnapshotWire,
  type ConversationStatsWire,
  conversationStatsSnapshotWireSchema,
  conversationStatsWireSchema,
  costWireSchema,
  MAX_STATS_RECORDS_PER_USAGE,
  MAX_STATS_USAGE_IDS,
  type MetricsSnapshotWire,
  type MetricsWire,
  metricsSnapshotWireSchema,
  metricsWireSchema,
  OVERFLOW_USAGE_ID,
  responseLatencyWireSchema,
  type TokenUsageWire,
  tokenUsageWireSchema,
} from './conversation-stats.js';
export {
  type ImageContentWire,
  imageContentWireSchema,
} from './image-content.js';
export {
  type LLMMessageWire,
  llmMessageWireSchema,
} from './llm-message.js';
export {
  type MessageEventWire,
  messageEventWireSchema,
} from './message-event.js';
export {
  type MessageToolCallWire,
  messageToolCallWireSchema,
} from './message-tool-call.js';
export {
  type ObservationEventWire,
  observationEventWireSchema,
} from './observation-event.js';
export {
  type PauseEventWire,
  pauseEventWireSchema,
} from './pause-event.js';
export {
  CUSTOM_SECURITY_ANALYZER_KIND,
  PATTERN_SECURITY_ANALYZER_KIND,
  type SecurityAnalyzerWire,
  type SetSecurityAnalyzerRequestWire,
  securityAnalyzerWireSchema,
  setSecurityAnalyzerRequestWireSchema,
  UNSUPPORTED_SECURITY_ANALYZER_KINDS,
} from './security-analyzer.js';
export {
  MAX_MESSAGE_CONTENT_PARTS,
  type SendMessageRequestWire,
  sendMessageRequestWireSchema,
} from './send-message-request.js';
export {
  type ConversationWorkspaceWire,
  conversationWorkspaceWireSchema,
  MAX_CONVERSATION_ITERATIONS,
  MAX_CONVERSATION_TITLE_CHARS,
  type StartConversationRequestWire,
  startConversationRequestWireSchema,
} from './start-conversation-request.js';
export {
  type StreamingDeltaEventWire,
  streamingDeltaEventWireSchema,
} from './streaming-delta-event.js';
export {
  TERMINATION_REASONS,
  type TerminationReason,
  terminationReasonSchema,
} from './termination-reason.js';
export { type TextContentWire, textContentWireSchema } from './text-content.js';
export { TOOL_NAMES, type ToolName } from './tool-names.js';
export {
  type WebsocketAuthFrameWire,
  websocketAuthFrameWireSchema,
} from './websocket-auth-frame.js';
