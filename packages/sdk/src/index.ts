export type { ActionReview, ActionReviewer } from './agent/action-review.js';
export {
  Agent,
  type AgentFromConfigOptions,
  type AgentOptions,
  type AgentStepContext,
  type AgentStepResult,
  DEFAULT_MAX_ITERATIONS,
  MAX_ITERATIONS_LIMIT,
} from './agent/agent.js';
export { type AgentConfig, agentConfigSchema } from './agent/agent-config.js';
export {
  ASK_AGENT_USAGE_ID,
  type AskAgentRequest,
  askAgent,
  askAgentPrompt,
  checkAskAgentQuestion,
} from './agent/ask-agent.js';
export { DEFAULT_SYSTEM_PROMPT } from './agent/default-system-prompt.js';
export { MAX_PROMPTED_SECRET_NAMES, withSecretNames } from './agent/secrets-prompt.js';
export { toolKindName, toolSpecName } from './agent/tool-kind-name.js';
export {
  applyCondensation,
  CONDENSER_KINDS,
  type CondensedView,
  type CondenseRequest,
  type Condenser,
  type CondenserConfig,
  condensedView,
  condenserConfigSchema,
  condenserFromConfig,
  DEFAULT_CONDENSER_KEEP_FIRST,
  DEFAULT_CONDENSER_MAX_SIZE,
  LLMSummarizingCondenser,
  type LLMSummarizingCondenserOptions,
  MAX_CONDENSER_MAX_SIZE,
  MAX_SUMMARIZED_EVENT_CHARS,
  NoOpCondenser,
  RollingWindowCondenser,
  type WindowCondenserOptions,
} from './condenser/index.js';
export { agentFinalResponse } from './conversation/agent-final-response.js';
export type {
  BaseConversation,
  ConversationRunOptions,
  ConversationState,
} from './conversation/base-conversation.js';
export {
  ConfirmationControl,
  type ConfirmationResponse,
  type ConfirmationSettings,
  heldActions,
  persistedConfirmationSettings,
} from './conversation/confirmation-control.js';
export { Conversation, type ConversationOptions } from './conversation/conversation.js';
export type {
  CondenseOptions,
  ForkLocalConversationOptions,
} from './conversation/conversation-control.js';
export {
  type ConversationEventListener,
  ConversationEvents,
} from './conversation/conversation-events.js';
export type {
  ConversationHistory,
  ReadHistoryOptions,
} from './conversation/conversation-history.js';
export {
  type ConversationHistoryLimits,
  DEFAULT_MAX_DISK_BYTES,
  DEFAULT_MAX_EVENT_BYTES,
  DEFAULT_MAX_MEMORY_BYTES,
  MIN_MAX_EVENT_BYTES,
} from './conversation/conversation-history-limits.js';
export type {
  AskAgentOptions,
  StreamingDeltaListener,
} from './conversation/conversation-llm-control.js';
export type { UnavailableTool } from './conversation/conversation-tools.js';
export { REMOTE_EVENT_PAGE_LIMIT } from './conversation/fetch-conversation-events.js';
export { EVENT_TOO_LARGE } from './conversation/fit-event.js';
export { LocalConversation } from './conversation/local-conversation.js';
export type {
  LocalConversationOptions,
  LocalConversationState,
  OpenLocalConversationOptions,
} from './conversation/local-conversation-options.js';
export {
  REMOTE_RUN_POLL_MAX_MS,
  RemoteConversation,
} from './conversation/remote-conversation.js';
export { REMOTE_CONVERSATION_REQUEST_TIMEOUT_MS } from './conversation/remote-conversation-http.js';
export type {
  AttachRemoteConversationOptions,
  RemoteConversationOptions,
} from './conversation/remote-conversation-options.js';
export {
  EVENTS_SOCKET_READY_TIMEOUT_MS,
  EVENTS_SOCKET_RECONNECT_INITIAL_MS,
  EVENTS_SOCKET_RECONNECT_MAX_MS,
} from './conversation/remote-events-socket.js';
export {
  DEFAULT_STUCK_THRESHOLD,
  detectStuck,
  MAX_STUCK_THRESHOLD,
  type StuckPattern,
} from './conversation/stuck-detector.js';
export {
  ALTERNATING_PATTERN_THRESHOLD,
  MONOLOGUE_THRESHOLD,
} from './conversation/stuck-patterns.js';
export type {
  Completion,
  CompletionRequest,
  LanguageModel,
  TokenUsage,
  ToolSpec,
} from './llm/language-model.js';
export { LLM, LLM_DEFAULTS } from './llm/llm.js';
export {
  type LLMConfig,
  type LLMConfigInput,
  llmConfigSchema,
  MAX_LLM_RETRIES,
  MAX_LLM_RETRY_WAIT_SECONDS,
  MAX_LLM_TIMEOUT_SECONDS,
} from './llm/llm-config.js';
export { LLMError, type LLMErrorCode, type LLMErrorOptions } from './llm/llm-error.js';
export type { LLMMessage, LLMRole, ToolCall } from './llm/llm-message.js';
export type {
  LLMFromConfigOptions,
  LLMMetrics,
  LLMOptions,
  LLMRetryEvent,
  LLMToConfigOptions,
} from './llm/llm-options.js';
export { languageModelFromConfig } from './llm/model-from-config.js';
export {
  SCRIPTED_MODEL,
  ScriptedLLM,
  type ScriptedLLMConfig,
  type ScriptedLLMOptions,
  type ScriptedStep,
  type ScriptedToolCall,
  type ScriptedUsage,
  scriptedLLMConfigSchema,
} from './llm/scripted-llm.js';
export type { StreamDelta, StreamDeltaListener } from './llm/stream-completion.js';
export {
  MAX_SCRIPTED_STREAM_CHUNK_CHARS,
  MAX_SCRIPTED_STREAM_DELAY_MS,
} from './llm/stream-scripted.js';
export {
  type CommandSecretEnv,
  type CommandSecrets,
  ConversationSecrets,
  type ConversationSecretsOptions,
  type SecretFailure,
} from './secrets/conversation-secrets.js';
export {
  type FetchLookupSecretOptions,
  fetchLookupSecret,
  LOOKUP_SECRET_TIMEOUT_MS,
} from './secrets/fetch-lookup-secret.js';
export { MAX_MASKED_VALUES, SecretMasker } from './secrets/secret-masker.js';
export type {
  LookupSecret,
  SecretInput,
  SecretSource,
  SecretsUpdate,
  StaticSecret,
} from './secrets/secret-source.js';
export { SecretStreamMasker } from './secrets/secret-stream-masker.js';
export {
  type ConfirmationPolicy,
  type ConfirmationPolicyInput,
  NEVER_CONFIRM,
  parseConfirmationPolicy,
  shouldConfirm,
} from './security/confirmation-policy.js';
export {
  type ActionFacts,
  PATTERN_RULES,
  type PatternRuleId,
  type RuleFinding,
  type RuleRisk,
} from './security/pattern-rule-table.js';
export { applyPatternRules } from './security/pattern-rules.js';
export {
  MAX_ANALYZED_CHARS,
  type PatternAnalysis,
  PatternSecurityAnalyzer,
} from './security/pattern-security-analyzer.js';
export {
  resolveSecurityAnalyzer,
  type SecurityAnalysisContext,
  type SecurityAnalyzer,
  type SecurityAnalyzerFunction,
  type SecurityAnalyzerOption,
} from './security/security-analyzer.js';
export { highestRisk, isAtLeastAsRisky } from './security/security-risk.js';
export { ConversationStats, type ModelResponseRecord } from './stats/conversation-stats.js';
export {
  axTreeText,
  browserObservationText,
  MAX_BROWSER_AXTREE_CHARS,
  MAX_BROWSER_PAGE_TEXT_CHARS,
} from './tools/browser-observation-text.js';
export {
  BROWSER_PLUGIN,
  BROWSER_TOOL_NAME,
  type BrowserArgs,
  BrowserTool,
  browserArgsSchema,
} from './tools/browser-tool.js';
export {
  type CreateToolOptions,
  type CreateToolsOptions,
  createTool,
  createTools,
  isToolName,
  TOOL_NAMES,
  type ToolName,
  type ToolReference,
} from './tools/create-tools.js';
export { type FileEditorArgs, fileEditorArgsSchema } from './tools/file-editor-args.js';
export {
  EDITOR_SNIPPET_CONTEXT_LINES,
  FILE_EDITOR_TOOL_NAME,
  FileEditorTool,
  type FileEditorToolOptions,
  MAX_EDITOR_UNDO_STEPS,
} from './tools/file-editor-tool.js';
export {
  type FinishArgs,
  FinishTool,
  finishArgsSchema,
  isFinishTool,
} from './tools/finish-tool.js';
export {
  IPYTHON_PLUGIN,
  IPYTHON_TOOL_NAME,
  type IPythonArgs,
  IPythonTool,
  ipythonArgsSchema,
} from './tools/ipython-tool.js';
export {
  actionExecutorFor,
  runtimePluginAvailability,
} from './tools/runtime-plugin-availability.js';
export {
  MAX_TRACKED_TASKS,
  TASK_TRACKER_TOOL_NAME,
  type TaskItem,
  type TaskTrackerArgs,
  TaskTrackerTool,
  taskItemSchema,
  taskTrackerArgsSchema,
} from './tools/task-tracker-tool.js';
export {
  DEFAULT_TERMINAL_TIMEOUT_SECONDS,
  MAX_TERMINAL_STATE_BYTES,
  TERMINAL_TOOL_NAME,
  type TerminalArgs,
  TerminalTool,
  type TerminalToolOptions,
  terminalArgsSchema,
} from './tools/terminal-tool.js';
export { MAX_EDITOR_FILE_BYTES } from './tools/text-file.js';
export type { Tool, ToolAvailability, ToolContext, ToolObservation } from './tools/tool.js';
export {
  MAX_MODEL_TEXT_CHARS,
  type TruncateForModelOptions,
  truncateForModel,
} from './tools/truncate-for-model.js';
