import { type ActionExecutor, hasAgentServer, type Workspace } from '@agent-workspace/core';
import type { Agent } from '../agent/agent.js';
import type { BaseConversation } from './base-conversation.js';
import { LocalConversation } from './local-conversation.js';
import { RemoteConversation } from './remote-conversation.js';

/** Options of {@link Conversation}. */
export interface ConversationOptions {
  agent: Agent;
  /** Decides where the agent loop runs; not closed by the conversation. */
  workspace: Workspace;
  /**
   * Remote only: the id of the new conversation (a UUID). A server that has it already answers
   * with that conversation.
   */
  conversationId?: string | undefined;
  /** Local only: where the conversation is persisted (see `LocalConversation.create`). */
  persistenceDir?: string | undefined;
  /**
   * Local only: runs the browser and IPython tools' actions (see `LocalConversationOptions`);
   * remote conversations use their server's plugins.
   */
  actions?: ActionExecutor | null | undefined;
  /** Iterations per run (remote; local conversations use the agent's `maxIterations`). */
  maxIterations?: number | undefined;
  /** Ends a run as `stuck` when the agent repeats itself. Default on. */
  stuckDetection?: boolean | undefined;
  /** Aborts connecting to the agent-server (remote). */
  signal?: AbortSignal | undefined;
}

/**
 * Starts a conversation where its workspace says it should run: on the workspace's
 * agent-server ({@link RemoteConversation}) when the workspace has that capability
 * (`agentServerEndpoint`, e.g. `RemoteWorkspace`, `DockerWorkspace`), otherwise in this
 * process ({@link LocalConversation}). Both behind {@link BaseConversation}.
 *
 * @example
 * ```ts
 * await using conversation = await Conversation({ agent, workspace });
 * await conversation.sendMessage('List the files');
 * await conversation.run();
 * console.log(await conversation.agentFinalResponse());
 * ```
 */
export async function Conversation(options: ConversationOptions): Promise<BaseConversation> {
  const { agent, workspace, stuckDetection } = options;
  if (hasAgentServer(workspace)) {
    return RemoteConversation.create({
      agent,
      workspace,
      conversationId: options.conversationId,
      maxIterations: options.maxIterations,
      stuckDetection,
      signal: options.signal,
    });
  }
  return LocalConversation.create({
    agent,
    workspace,
    persistenceDir: options.persistenceDir,
    stuckDetection,
    actions: options.actions,
  });
}
