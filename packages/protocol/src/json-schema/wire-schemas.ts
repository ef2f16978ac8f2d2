import type { z } from 'zod';
import { actionWireSchema, executeActionRequestWireSchema } from '../actions/action-wire.js';
import {
  axNodeWireSchema,
  browserOutputObservationWireSchema,
  cmdOutputObservationWireSchema,
  errorObservationWireSchema,
  fileEditObservationWireSchema,
  fileReadObservationWireSchema,
  fileWriteObservationWireSchema,
  ipythonRunCellObservationWireSchema,
  observationWireSchema,
} from '../actions/observation-wire.js';
import { internalServerErrorBodySchema } from '../errors/internal-server-error-body.js';
import { actionEventWireSchema } from '../models/action-event.js';
import { agentErrorEventWireSchema } from '../models/agent-error-event.js';
import { bashCommandWireSchema } from '../models/bash-command.js';
import { bashErrorWireSchema } from '../models/bash-error.js';
import { bashEventWireSchema } from '../models/bash-event.js';
import { bashEventPageWireSchema } from '../models/bash-event-page.js';
import { bashEventSearchQueryWireSchema } from '../models/bash-event-search-query.js';
import { bashEventsClearedWireSchema } from '../models/bash-events-cleared.js';
import { bashOutputWireSchema } from '../models/bash-output.js';
import { commandResultWireSchema } from '../models/command-result.js';
import {
  confirmationPolicyWireSchema,
  confirmationResponseRequestWireSchema,
  setConfirmationPolicyRequestWireSchema,
  userRejectObservationWireSchema,
} from '../models/confirmation-policy.js';
import {
  condensationEventWireSchema,
  condensationRequestEventWireSchema,
  forkConversationRequestWireSchema,
  interruptEventWireSchema,
} from '../models/conversation-control.js';
import { conversationErrorEventWireSchema } from '../models/conversation-error-event.js';
import { conversationEventWireSchema } from '../models/conversation-event.js';
import { conversationEventPageWireSchema } from '../models/conversation-event-page.js';
import {
  agentFinalResponseWireSchema,
  conversationInfoWireSchema,
  conversationPageWireSchema,
  updateConversationRequestWireSchema,
} from '../models/conversation-info.js';
import {
  askAgentRequestWireSchema,
  askAgentResponseWireSchema,
  switchLlmRequestWireSchema,
} from '../models/conversation-llm-control.js';
import {
  lookupSecretWireSchema,
  secretSourceInputWireSchema,
  secretsMapWireSchema,
  staticSecretWireSchema,
  updateSecretsRequestWireSchema,
} from '../models/conversation-secrets.js';
import { conversationStateUpdateEventWireSchema } from '../models/conversation-state-update-event.js';
import {
  conversationStatsSnapshotWireSchema,
  conversationStatsWireSchema,
  costWireSchema,
  metricsSnapshotWireSchema,
  metricsWireSchema,
  responseLatencyWireSchema,
  tokenUsageWireSchema,
} from '../models/conversation-stats.js';
import { directoryArchiveSummaryWireSchema } from '../models/directory-archive-summary.js';
import {
  directoryEntryWireSchema,
  directoryListingPageWireSchema,
} from '../models/directory-listing.js';
import { errorEnvelopeSchema } from '../models/error-envelope.js';
import {
  execClientFrameWireSchema,
  execServerFrameWireSchema,
} from '../models/exec-stream-frame.js';
import { executeBashRequestWireSchema } from '../models/execute-bash-request.js';
import {
  fileBrowserEntryWireSchema,
  homeResponseWireSchema,
  subdirectoryEntryWireSchema,
  subdirectoryPageWireSchema,
} from '../models/file-browser.js';
import { fileOperationResultWireSchema } from '../models/file-operation-result.js';
import {
  fileWatchQueryWireSchema,
  fileWatchServerFrameWireSchema,
} from '../models/file-watch-frame.js';
import { gitChangeWireSchema, gitDiffWireSchema } from '../models/git-change.js';
import {
  gitCommitShaParamsWireSchema,
  gitCommitsPageWireSchema,
  gitCommitsQueryWireSchema,
  gitCommitWireSchema,
} from '../models/git-commit.js';
import { healthStatusSchema, readyStatusSchema } from '../models/health-status.js';
import { imageContentWireSchema } from '../models/image-content.js';
import { llmMessageWireSchema } from '../models/llm-message.js';
import { messageEventWireSchema } from '../models/message-event.js';
import { messageToolCallWireSchema } from '../models/message-tool-call.js';
import { observationEventWireSchema } from '../models/observation-event.js';
import { pauseEventWireSchema } from '../models/pause-event.js';
import {
  processTreeMemoryWireSchema,
  runtimePluginStatusWireSchema,
  serverResourcesWireSchema,
} from '../models/runtime-plugin-status.js';
import {
  securityAnalyzerWireSchema,
  setSecurityAnalyzerRequestWireSchema,
} from '../models/security-analyzer.js';
import { sendMessageRequestWireSchema } from '../models/send-message-request.js';
import { serverInfoWireSchema } from '../models/server-info.js';
import { initRequestWireSchema, initStatusWireSchema } from '../models/server-init.js';
import {
  conversationWorkspaceWireSchema,
  startConversationRequestWireSchema,
} from '../models/start-conversation-request.js';
import { streamingDeltaEventWireSchema } from '../models/streaming-delta-event.js';
import { successSchema } from '../models/success.js';
import { textContentWireSchema } from '../models/text-content.js';
import { trustBoundaryWireSchema } from '../models/trust-boundary.js';
import { validationIssueSchema } from '../models/validation-issue.js';
import { websocketAuthFrameWireSchema } from '../models/websocket-auth-frame.js';
import { workspaceArchiveManifestWireSchema } from '../models/workspace-archive-manifest.js';
import { workspaceIdentityWireSchema } from '../models/workspace-identity.js';
import { workspaceMetricsWireSchema } from '../models/workspace-metrics.js';
import {
  warmPoolImageStatsWireSchema,
  warmPoolStatsWireSchema,
} from '../runtime-api/warm-pool-stats.js';
import type { JsonSchemaOptions } from './to-json-schema.js';

/** A named wire schema and the side ({@link JsonSchemaOptions.io}) a server publishes it for. */
export interface WireSchemaEntry {
  schema: z.ZodType;
  io: NonNullable<JsonSchemaOptions['io']>;
}

/**
 * Every wire model by its OpenHands name (ours for our extensions), for generating OpenAPI
 * components: requests are described as input, responses and events as output. A new wire model
 * is registered here; `wire-schemas.test.ts` fails until it is.
 */
export const wireSchemas = {
  ExecuteBashRequest: { schema: executeBashRequestWireSchema, io: 'input' },
  BashEventSearchQuery: { schema: bashEventSearchQueryWireSchema, io: 'input' },
  WebsocketAuthFrame: { schema: websocketAuthFrameWireSchema, io: 'input' },
  ExecClientFrame: { schema: execClientFrameWireSchema, io: 'input' },
  ExecServerFrame: { schema: execServerFrameWireSchema, io: 'output' },
  FileWatchQuery: { schema: fileWatchQueryWireSchema, io: 'input' },
  FileWatchServerFrame: { schema: fileWatchServerFrameWireSchema, io: 'output' },
  BashCommand: { schema: bashCommandWireSchema, io: 'output' },
  BashOutput: { schema: bashOutputWireSchema, io: 'output' },
  BashError: { schema: bashErrorWireSchema, io: 'output' },
  BashEvent: { schema: bashEventWireSchema, io: 'output' },
  BashEventPage: { schema: bashEventPageWireSchema, io: 'output' },
  BashEventsCleared: { schema: bashEventsClearedWireSchema, io: 'output' },
  CommandResult: { schema: commandResultWireSchema, io: 'output' },
  FileOperationResult: { schema: fileOperationResultWireSchema, io: 'output' },
  WorkspaceMetrics: { schema: workspaceMetricsWireSchema, io: 'output' },
  DirectoryArchiveSummary: { schema: directoryArchiveSummaryWireSchema, io: 'output' },
  DirectoryEntry: { schema: directoryEntryWireSchema, io: 'output' },
  DirectoryListingPage: { schema: directoryListingPageWireSchema, io: 'output' },
  WorkspaceArchiveManifest: { schema: workspaceArchiveManifestWireSchema, io: 'output' },
  SubdirectoryEntry: { schema: subdirectoryEntryWireSchema, io: 'output' },
  SubdirectoryPage: { schema: subdirectoryPageWireSchema, io: 'output' },
  FileBrowserEntry: { schema: fileBrowserEntryWireSchema, io: 'output' },
  HomeResponse: { schema: homeResponseWireSchema, io: 'output' },
  GitChange: { schema: gitChangeWireSchema, io: 'output' },
  GitDiff: { schema: gitDiffWireSchema, io: 'output' },
  GitCommit: { schema: gitCommitWireSchema, io: 'output' },
  GitCommitsPage: { schema: gitCommitsPageWireSchema, io: 'output' },
  GitCommitsQuery: { schema: gitCommitsQueryWireSchema, io: 'input' },
  GitCommitShaParams: { schema: gitCommitShaParamsWireSchema, io: 'input' },
  ServerInfo: { schema: serverInfoWireSchema, io: 'output' },
  InitRequest: { schema: initRequestWireSchema, io: 'input' },
  InitStatus: { schema: initStatusWireSchema, io: 'output' },
  HealthStatus: { schema: healthStatusSchema, io: 'output' },
  ReadyStatus: { schema: readyStatusSchema, io: 'output' },
  Success: { schema: successSchema, io: 'output' },
  ValidationIssue: { schema: validationIssueSchema, io: 'output' },
  ErrorEnvelope: { schema: errorEnvelopeSchema, io: 'output' },
  InternalServerErrorBody: { schema: internalServerErrorBodySchema, io: 'output' },
  TextContent: { schema: textContentWireSchema, io: 'output' },
  ImageContent: { schema: imageContentWireSchema, io: 'output' },
  MessageToolCall: { schema: messageToolCallWireSchema, io: 'output' },
  Message: { schema: llmMessageWireSchema, io: 'output' },
  MessageEvent: { schema: messageEventWireSchema, io: 'output' },
  ActionEvent: { schema: actionEventWireSchema, io: 'output' },
  ObservationEvent: { schema: observationEventWireSchema, io: 'output' },
  AgentErrorEvent: { schema: agentErrorEventWireSchema, io: 'output' },
  ConversationErrorEvent: { schema: conversationErrorEventWireSchema, io: 'output' },
  ConversationStateUpdateEvent: { schema: conversationStateUpdateEventWireSchema, io: 'output' },
  PauseEvent: { schema: pauseEventWireSchema, io: 'output' },
  UserRejectObservation: { schema: userRejectObservationWireSchema, io: 'output' },
  ConfirmationPolicy: { schema: confirmationPolicyWireSchema, io: 'input' },
  SetConfirmationPolicyRequest: { schema: setConfirmationPolicyRequestWireSchema, io: 'input' },
  ConfirmationResponseRequest: { schema: confirmationResponseRequestWireSchema, io: 'input' },
  SecurityAnalyzer: { schema: securityAnalyzerWireSchema, io: 'input' },
  SetSecurityAnalyzerRequest: { schema: setSecurityAnalyzerRequestWireSchema, io: 'input' },
  StreamingDeltaEvent: { schema: streamingDeltaEventWireSchema, io: 'output' },
  ConversationStats: { schema: conversationStatsWireSchema, io: 'output' },
  ConversationStatsSnapshot: { schema: conversationStatsSnapshotWireSchema, io: 'output' },
  Metrics: { schema: metricsWireSchema, io: 'output' },
  MetricsSnapshot: { schema: metricsSnapshotWireSchema, io: 'output' },
  TokenUsage: { schema: tokenUsageWireSchema, io: 'output' },
  Cost: { schema: costWireSchema, io: 'output' },
  ResponseLatency: { schema: responseLatencyWireSchema, io: 'output' },
  AskAgentRequest: { schema: askAgentRequestWireSchema, io: 'input' },
  AskAgentResponse: { schema: askAgentResponseWireSchema, io: 'output' },
  SwitchLlmRequest: { schema: switchLlmRequestWireSchema, io: 'input' },
  InterruptEvent: { schema: interruptEventWireSchema, io: 'output' },
  Condensation: { schema: condensationEventWireSchema, io: 'output' },
  CondensationRequest: { schema: condensationRequestEventWireSchema, io: 'output' },
  ForkConversationRequest: { schema: forkConversationRequestWireSchema, io: 'input' },
  ConversationEvent: { schema: conversationEventWireSchema, io: 'output' },
  StartConversationRequest: { schema: startConversationRequestWireSchema, io: 'input' },
  SendMessageRequest: { schema: sendMessageRequestWireSchema, io: 'input' },
  UpdateConversationRequest: { schema: updateConversationRequestWireSchema, io: 'input' },
  StaticSecret: { schema: staticSecretWireSchema, io: 'input' },
  LookupSecret: { schema: lookupSecretWireSchema, io: 'input' },
  SecretSourceInput: { schema: secretSourceInputWireSchema, io: 'input' },
  SecretsMap: { schema: secretsMapWireSchema, io: 'input' },
  UpdateSecretsRequest: { schema: updateSecretsRequestWireSchema, io: 'input' },
  ConversationWorkspace: { schema: conversationWorkspaceWireSchema, io: 'output' },
  ConversationInfo: { schema: conversationInfoWireSchema, io: 'output' },
  ConversationPage: { schema: conversationPageWireSchema, io: 'output' },
  ConversationEventPage: { schema: conversationEventPageWireSchema, io: 'output' },
  AgentFinalResponse: { schema: agentFinalResponseWireSchema, io: 'output' },
  WorkspaceIdentity: { schema: workspaceIdentityWireSchema, io: 'output' },
  RuntimePluginStatus: { schema: runtimePluginStatusWireSchema, io: 'output' },
  ServerResources: { schema: serverResourcesWireSchema, io: 'output' },
  TrustBoundary: { schema: trustBoundaryWireSchema, io: 'output' },
  ProcessTreeMemory: { schema: processTreeMemoryWireSchema, io: 'output' },
  Action: { schema: actionWireSchema, io: 'input' },
  ActionRequest: { schema: executeActionRequestWireSchema, io: 'input' },
  Observation: { schema: observationWireSchema, io: 'output' },
  CmdOutputObservation: { schema: cmdOutputObservationWireSchema, io: 'output' },
  FileReadObservation: { schema: fileReadObservationWireSchema, io: 'output' },
  FileWriteObservation: { schema: fileWriteObservationWireSchema, io: 'output' },
  FileEditObservation: { schema: fileEditObservationWireSchema, io: 'output' },
  IPythonRunCellObservation: { schema: ipythonRunCellObservationWireSchema, io: 'output' },
  BrowserOutputObservation: { schema: browserOutputObservationWireSchema, io: 'output' },
  AxNode: { schema: axNodeWireSchema, io: 'output' },
  ErrorObservation: { schema: errorObservationWireSchema, io: 'output' },
  WarmPoolStats: { schema: warmPoolStatsWireSchema, io: 'output' },
  WarmPoolImageStats: { schema: warmPoolImageStatsWireSchema, io: 'output' },
} as const satisfies Record<string, WireSchemaEntry>;
