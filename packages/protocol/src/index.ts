// Everything that needs no schema (routes, headers, codes, limits) is in the zod-free entry.

export {
  ACTION_ARGS_SCHEMAS,
  type ActionName,
  type BrowseInteractiveArgs,
  type BrowseUrlArgs,
  browseInteractiveArgsSchema,
  browseUrlArgsSchema,
  type CmdRunArgs,
  cmdRunArgsSchema,
  type FileEditArgs,
  type FileReadArgs,
  type FileWriteArgs,
  fileEditArgsSchema,
  fileReadArgsSchema,
  fileWriteArgsSchema,
  type IPythonRunCellArgs,
  ipythonRunCellArgsSchema,
} from './actions/action-args.js';
export {
  type ActionWire,
  actionWireSchema,
  type ExecuteActionRequestWire,
  executeActionRequestWireSchema,
} from './actions/action-wire.js';
export {
  type AxNodeWire,
  axNodeWireSchema,
  type BrowserOutputObservationWire,
  browserDownloadWireSchema,
  browserOutputObservationWireSchema,
  type CmdOutputObservationWire,
  cmdOutputMetadataWireSchema,
  cmdOutputObservationWireSchema,
  type ErrorObservationWire,
  errorObservation,
  errorObservationWireSchema,
  type FileEditObservationWire,
  type FileReadObservationWire,
  type FileWriteObservationWire,
  fileEditObservationWireSchema,
  fileReadObservationWireSchema,
  fileWriteObservationWireSchema,
  type IPythonRunCellObservationWire,
  ipythonRunCellObservationWireSchema,
  type ObservationWire,
  observationWireSchema,
} from './actions/observation-wire.js';
export * from './constants.js';
export { execErrorCodeSchema } from './errors/exec-error-code.js';
export { httpErrorBody } from './errors/http-error-body.js';
export {
  type InternalServerErrorBody,
  internalServerErrorBody,
  internalServerErrorBodySchema,
} from './errors/internal-server-error-body.js';
export {
  type ValidationErrorBody,
  type ValidationLocation,
  validationErrorBody,
} from './errors/validation-error-body.js';
export { workspaceErrorCodeSchema } from './errors/workspace-error-code.js';
export { hexIdInputSchema, newHexId, normalizeHexId } from './ids/hex-id.js';
export {
  type JsonSchema,
  type JsonSchemaOptions,
  toJsonSchema,
} from './json-schema/to-json-schema.js';
export { type WireSchemaEntry, wireSchemas } from './json-schema/wire-schemas.js';
export {
  clientPathSchema,
  commandEnvironmentSchema,
  commandTextSchema,
  commandTimeoutSchema,
  environmentNameSchema,
} from './limits/command-input-schemas.js';
export {
  type ActionEventWire,
  actionEventWireSchema,
} from './models/action-event.js';
export {
  type AgentErrorEventWire,
  agentErrorEventWireSchema,
} from './models/agent-error-event.js';
export {
  type BashCommand,
  type BashCommandWire,
  bashCommandWireSchema,
} from './models/bash-command.js';
export {
  type BashError,
  type BashErrorWire,
  bashErrorWireSchema,
} from './models/bash-error.js';
export {
  type BashEvent,
  type BashEventWire,
  bashEventFromWire,
  bashEventWireSchema,
} from './models/bash-event.js';
export {
  type BashEventPage,
  type BashEventPageWire,
  bashEventPageFromWire,
  bashEventPageWireSchema,
} from './models/bash-event-page.js';
export {
  type BashEventSearchQuery,
  type BashEventSearchQueryWire,
  type BashEventSortOrder,
  bashEventSearchQueryFromWire,
  bashEventSearchQueryToSearchParams,
  bashEventSearchQueryWireSchema,
  bashEventSortOrderSchema,
} from './models/bash-event-search-query.js';
export {
  type BashEventsClearedWire,
  bashEventsClearedWireSchema,
} from './models/bash-events-cleared.js';
export {
  type BashOutput,
  type BashOutputWire,
  bashOutputWireSchema,
} from './models/bash-output.js';
export {
  type CommandResult,
  type CommandResultWire,
  commandResultWireSchema,
} from './models/command-result.js';
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
} from './models/confirmation-policy.js';
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
} from './models/conversation-control.js';
export {
  AGENT_STUCK,
  type ConversationErrorEventWire,
  conversationErrorEventWireSchema,
  MAX_ITERATIONS_REACHED,
} from './models/conversation-error-event.js';
export {
  type ConversationEventKind,
  type ConversationEventWire,
  conversationEventWireSchema,
} from './models/conversation-event.js';
export type { EventSource } from './models/conversation-event-base.js';
export {
  type ConversationEventPageWire,
  conversationEventPageWireSchema,
} from './models/conversation-event-page.js';
export {
  CONVERSATION_EXECUTION_STATUSES,
  type ConversationExecutionStatus,
} from './models/conversation-execution-status.js';
export {
  agentFinalResponseWireSchema,
  type ConversationInfoWire,
  type ConversationPageWire,
  conversationInfoWireSchema,
  conversationPageWireSchema,
  type UpdateConversationRequestWire,
  updateConversationRequestWireSchema,
} from './models/conversation-info.js';
export {
  type AskAgentRequestWire,
  type AskAgentResponseWire,
  askAgentRequestWireSchema,
  askAgentResponseWireSchema,
  MAX_ASK_AGENT_QUESTION_LENGTH,
  type SwitchLlmRequestWire,
  switchLlmRequestWireSchema,
} from './models/conversation-llm-control.js';
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
} from './models/conversation-secrets.js';
export {
  CONVERSATION_STATE_KEYS,
  type ConversationStateUpdateEventWire,
  conversationStateUpdateEventWireSchema,
} from './models/conversation-state-update-event.js';
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
} from './models/conversation-stats.js';
export {
  type DirectoryArchiveSummaryWire,
  directoryArchiveSummaryWireSchema,
} from './models/directory-archive-summary.js';
export {
  type DirectoryEntryType,
  type DirectoryEntryWire,
  type DirectoryListingPageWire,
  directoryEntryWireSchema,
  directoryListingPageWireSchema,
} from './models/directory-listing.js';
export {
  type ErrorEnvelopeWire,
  errorEnvelopeSchema,
} from './models/error-envelope.js';
export {
  type ExecClientFrameWire,
  type ExecServerFrameWire,
  type ExecSignal,
  execClientFrameWireSchema,
  execServerFrameWireSchema,
} from './models/exec-stream-frame.js';
export {
  DEFAULT_BASH_TIMEOUT_SECONDS,
  type ExecuteBashRequestWire,
  executeBashRequestWireSchema,
} from './models/execute-bash-request.js';
export {
  type FileBrowserEntryWire,
  fileBrowserEntryWireSchema,
  type HomeResponseWire,
  homeResponseWireSchema,
  type SubdirectoryEntryWire,
  type SubdirectoryPageWire,
  subdirectoryEntryWireSchema,
  subdirectoryPageWireSchema,
} from './models/file-browser.js';
export {
  type FileOperationResult,
  type FileOperationResultWire,
  fileOperationResultWireSchema,
} from './models/file-operation-result.js';
export {
  type FileWatchQueryWire,
  type FileWatchServerFrameWire,
  fileWatchQueryWireSchema,
  fileWatchServerFrameWireSchema,
} from './models/file-watch-frame.js';
export {
  type GitChange,
  type GitChangeStatus,
  type GitDiff,
  gitChangeStatusSchema,
  gitChangeWireSchema,
  gitDiffWireSchema,
} from './models/git-change.js';
export {
  fromGitCommitsPageWire,
  type GitCommit,
  type GitCommitsPage,
  type GitCommitsPageWire,
  type GitCommitWire,
  gitCommitShaParamsWireSchema,
  gitCommitsPageWireSchema,
  gitCommitsQueryWireSchema,
  gitCommitWireSchema,
  toGitCommitsPageWire,
} from './models/git-commit.js';
export {
  HEALTH_OK,
  type HealthStatus,
  healthStatusSchema,
  READY,
  type ReadyStatus,
  readyStatusSchema,
} from './models/health-status.js';
export {
  type ImageContentWire,
  imageContentWireSchema,
} from './models/image-content.js';
export {
  type LLMMessageWire,
  llmMessageWireSchema,
} from './models/llm-message.js';
export {
  type MessageEventWire,
  messageEventWireSchema,
} from './models/message-event.js';
export {
  type MessageToolCallWire,
  messageToolCallWireSchema,
} from './models/message-tool-call.js';
export {
  type ObservationEventWire,
  observationEventWireSchema,
} from './models/observation-event.js';
export {
  type PauseEventWire,
  pauseEventWireSchema,
} from './models/pause-event.js';
export {
  processTreeMemoryWireSchema,
  type RuntimePluginState,
  type RuntimePluginStatusWire,
  runtimePluginStateSchema,
  runtimePluginStatusWireSchema,
  type ServerResourcesWire,
  serverResourcesWireSchema,
} from './models/runtime-plugin-status.js';
export {
  CUSTOM_SECURITY_ANALYZER_KIND,
  PATTERN_SECURITY_ANALYZER_KIND,
  type SecurityAnalyzerWire,
  type SetSecurityAnalyzerRequestWire,
  securityAnalyzerWireSchema,
  setSecurityAnalyzerRequestWireSchema,
  UNSUPPORTED_SECURITY_ANALYZER_KINDS,
} from './models/security-analyzer.js';
export {
  MAX_MESSAGE_CONTENT_PARTS,
  type SendMessageRequestWire,
  sendMessageRequestWireSchema,
} from './models/send-message-request.js';
export {
  type ServerInfo,
  type ServerInfoWire,
  serverInfoFromWire,
  serverInfoWireSchema,
} from './models/server-info.js';
export {
  deferredInitDetail,
  INIT_API_KEY_HEADER,
  type InitRequestWire,
  type InitState,
  type InitStatusWire,
  initRequestWireSchema,
  initStateSchema,
  initStatusWireSchema,
  MAX_INIT_SESSION_API_KEY_LENGTH,
  MAX_INIT_SESSION_API_KEYS,
} from './models/server-init.js';
export {
  type ConversationWorkspaceWire,
  conversationWorkspaceWireSchema,
  MAX_CONVERSATION_ITERATIONS,
  MAX_CONVERSATION_TITLE_CHARS,
  type StartConversationRequestWire,
  startConversationRequestWireSchema,
} from './models/start-conversation-request.js';
export {
  type StreamingDeltaEventWire,
  streamingDeltaEventWireSchema,
} from './models/streaming-delta-event.js';
export { SUCCESS, type Success, successSchema } from './models/success.js';
export {
  TERMINATION_REASONS,
  type TerminationReason,
  terminationReasonSchema,
} from './models/termination-reason.js';
export { type TextContentWire, textContentWireSchema } from './models/text-content.js';
export { TOOL_NAMES, type ToolName } from './models/tool-names.js';
export { type TrustBoundaryWire, trustBoundaryWireSchema } from './models/trust-boundary.js';
export { type ValidationIssue, validationIssueSchema } from './models/validation-issue.js';
export {
  type WebsocketAuthFrameWire,
  websocketAuthFrameWireSchema,
} from './models/websocket-auth-frame.js';
export {
  type WorkspaceArchiveManifestWire,
  workspaceArchiveManifestWireSchema,
} from './models/workspace-archive-manifest.js';
export {
  type WorkspaceAccessMode,
  type WorkspaceIdentity,
  type WorkspaceIdentityWire,
  type WorkspaceProjectionKind,
  workspaceIdentityFromWire,
  workspaceIdentityToWire,
  workspaceIdentityWireSchema,
} from './models/workspace-identity.js';
export {
  type WorkspaceMetrics,
  type WorkspaceMetricsWire,
  workspaceMetricsFromWire,
  workspaceMetricsWireSchema,
} from './models/workspace-metrics.js';
export { runtimeApiWireSchemas } from './runtime-api/runtime-api-wire-schemas.js';
export {
  FATAL_POD_STATUSES,
  type RuntimePodStatus,
  type RuntimeSession,
  type RuntimeSessionListWire,
  type RuntimeSessionStatus,
  type RuntimeSessionWire,
  runtimePodStatusSchema,
  runtimeSessionFromWire,
  runtimeSessionIdSchema,
  runtimeSessionListWireSchema,
  runtimeSessionStatusSchema,
  runtimeSessionWireSchema,
} from './runtime-api/runtime-session.js';
export {
  type RuntimeSnapshot,
  type RuntimeSnapshotListWire,
  type RuntimeSnapshotRemovedWire,
  type RuntimeSnapshotWire,
  runtimeSnapshotFromWire,
  runtimeSnapshotIdSchema,
  runtimeSnapshotListWireSchema,
  runtimeSnapshotNameSchema,
  runtimeSnapshotRemovedWireSchema,
  runtimeSnapshotWireSchema,
  type TakeRuntimeSnapshotRequestWire,
  takeRuntimeSnapshotRequestWireSchema,
} from './runtime-api/runtime-snapshot.js';
export {
  isSameOrAncestorPath,
  MAX_RUNTIME_VOLUME_NAME_LENGTH,
  MAX_RUNTIME_VOLUME_PATH_LENGTH,
  MAX_RUNTIME_VOLUMES,
  RUNTIME_VOLUME_RESERVED_TARGETS,
  type RuntimeVolumeWire,
  runtimeVolumeNameSchema,
  runtimeVolumesWireSchema,
  runtimeVolumeWireSchema,
} from './runtime-api/runtime-volume.js';
export {
  type RuntimeIdRequestWire,
  type RuntimeStoppedWire,
  runtimeIdRequestWireSchema,
  runtimeStoppedWireSchema,
  type StartRuntimeRequestWire,
  startRuntimeRequestWireSchema,
} from './runtime-api/start-runtime-request.js';
export {
  type WarmPoolImageStatsWire,
  type WarmPoolStatsWire,
  warmPoolImageStatsWireSchema,
  warmPoolStatsWireSchema,
} from './runtime-api/warm-pool-stats.js';
export {
  formatWireTimestamp,
  normalizeWireTimestamp,
  wireTimestampSchema,
} from './time/wire-timestamp.js';
