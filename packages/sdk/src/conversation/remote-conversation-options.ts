import type { Workspace } from '@agent-workspace/core';
import type { Agent } from '../agent/agent.js';
import type {
  ConfirmationPolicy,
  ConfirmationPolicyInput,
} from '../security/confirmation-policy.js';

/** Options of {@link RemoteConversation.create}. */
export interface RemoteConversationOptions {
  /** Sent to the server as JSON, with its LLM API key (the server runs the model). */
  agent: Agent;
  /** A workspace that talks to an agent-server (see `hasAgentServer`); not closed by the conversation. */
  workspace: Workspace;
  /** Id of the new conversation (a UUID); the server answers with the existing one if it has it. */
  conversationId?: string | undefined;
  /** Iterations per run. Default: the agent's `maxIterations`. */
  maxIterations?: number | undefined;
  /** Ends a run as `stuck` when the agent repeats itself. Default on. */
  stuckDetection?: boolean | undefined;
  /** The confirmation policy (default `NeverConfirm`); checked here (`INVALID_ARGUMENT`). */
  confirmationPolicy?: ConfirmationPolicyInput | undefined;
  /** `{ kind: 'PatternSecurityAnalyzer' }` or `null` (default: none). */
  securityAnalyzer?: { kind: string } | null | undefined;
  /** Aborts connecting (`ABORTED`). */
  signal?: AbortSignal | undefined;
}

/** Options of {@link RemoteConversation.attach}. */
export interface AttachRemoteConversationOptions {
  workspace: Workspace;
  /** Id of a conversation on the workspace's agent-server. */
  conversationId: string;
  signal?: AbortSignal | undefined;
}

/**
 * Request body of `POST /api/conversations` as this client sends it (OpenHands'
 * `StartConversationRequest`, the fields we use).
 */
export interface StartConversationBody {
  agent: object;
  workspace: { kind: 'LocalWorkspace'; working_dir: string };
  conversation_id?: string;
  max_iterations?: number;
  stuck_detection?: boolean;
  confirmation_policy?: ConfirmationPolicy;
  security_analyzer?: { kind: string } | null;
}
