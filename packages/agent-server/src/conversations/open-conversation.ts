import { mkdir, rm } from 'node:fs/promises';
import type { Workspace } from '@agent-workspace/core';
import { openDirectory, type PathWalker } from '@agent-workspace/core/internal';
import { formatWireTimestamp, type StartConversationRequestWire } from '@agent-workspace/protocol';
import type { ConversationSecrets, LocalConversation } from '@agent-workspace/sdk';
import { pathHttpError } from '../files/path-http-error.js';
import { agentFromWire } from './agent-from-wire.js';
import { conversationDir, persistenceDirOf } from './conversation-directories.js';
import { type ConversationMeta, writeMeta } from './conversation-meta.js';
import type { ConversationRecord } from './conversation-record.js';
import { parseSecretsBody, secretsOf } from './conversation-secrets-of.js';
import type {
  ConversationServiceOptions,
  resolveConversationHistory,
} from './conversation-service-options.js';

/** What opening a conversation needs of the service. */
export interface ConversationOpening {
  options: ConversationServiceOptions;
  history: ReturnType<typeof resolveConversationHistory>;
}

/** A conversation opened with its workspace. */
export interface OpenedConversation {
  conversation: LocalConversation;
  workspace: Workspace;
}

/**
 * Makes the new conversation `id` of `request` in `workingDir` (already resolved and checked):
 * its directory is made afresh, the sdk's state written, and `meta.json` last, which is what
 * makes it exist on disk. `stillWanted` is asked before `meta.json` counts: a service that closed
 * meanwhile gets a 503-worthy error from it. What a failed start made is removed.
 */
export async function startConversation(
  opening: ConversationOpening,
  start: {
    id: string;
    request: StartConversationRequestWire;
    workingDir: string;
    assertStillWanted: () => void;
    /** The new conversation's secrets; the request's `secrets` are added first (422 if bad). */
    secrets: ConversationSecrets;
  },
): Promise<OpenedConversation & { meta: ConversationMeta; dir: string | undefined }> {
  const { id, request, workingDir } = start;
  const { options, history } = opening;
  const given = (request as { secrets?: unknown }).secrets;
  if (given !== undefined && given !== null) {
    start.secrets.update(parseSecretsBody(given, ['secrets']));
  }
  const agent = await agentFromWire(request.agent, request.max_iterations);
  const meta: ConversationMeta = {
    id,
    workspace: { ...request.workspace, working_dir: workingDir },
    title: request.title ?? null,
    tags: request.tags,
    max_iterations: request.max_iterations,
    stuck_detection: request.stuck_detection,
    created_at: formatWireTimestamp(new Date()),
  };
  const dir = conversationDir(options.stateDir, id);
  if (dir !== undefined) {
    // What a create that did not finish (in this process) left goes.
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true, mode: 0o700 });
  }
  const workspace = options.workspace({ workingDir, conversationId: id });
  let conversation: LocalConversation | undefined;
  try {
    const { LocalConversation } = await import('@agent-workspace/sdk');
    conversation = await LocalConversation.create({
      agent,
      workspace,
      conversationId: id,
      persistenceDir: dir === undefined ? undefined : persistenceDirOf(dir),
      stuckDetection: request.stuck_detection,
      actions: options.actions(),
      history,
      secrets: start.secrets,
      confirmationPolicy: request.confirmation_policy,
      securityAnalyzer: request.security_analyzer ?? null,
    });
    if (dir !== undefined) await writeMeta(dir, meta);
    start.assertStillWanted();
    return { meta, dir, conversation, workspace };
  } catch (error) {
    await conversation?.close().catch(() => undefined);
    await workspace.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Reads a listed conversation back, with a new workspace; a failure names the conversation. */
export async function loadConversation(
  opening: ConversationOpening,
  record: ConversationRecord,
): Promise<OpenedConversation> {
  const { meta, dir } = record;
  const { options, history } = opening;
  // Only persisted conversations are ever unloaded.
  if (dir === undefined) throw new Error(`conversation ${meta.id} has no directory to load from`);
  const persistenceDir = persistenceDirOf(dir);
  const { LocalConversation } = await import('@agent-workspace/sdk');
  let workspace: Workspace | undefined;
  try {
    const summary = await LocalConversation.inspect(persistenceDir);
    const agent = await agentFromWire(summary.agent, meta.max_iterations);
    workspace = options.workspace({
      workingDir: meta.workspace.working_dir,
      conversationId: meta.id,
    });
    const conversation = await LocalConversation.open({
      agent,
      workspace,
      persistenceDir,
      stuckDetection: meta.stuck_detection,
      actions: options.actions(),
      history,
      secrets: await secretsOf(record),
    });
    return { conversation, workspace };
  } catch (error) {
    await workspace?.close();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`conversation ${meta.id} could not be loaded: ${reason}`, { cause: error });
  }
}

/**
 * The real path of a conversation's `workspace.working_dir`, checked (and confined) through the
 * server's walker as the bash routes check cwds.
 * @throws HttpError 400/403/404.
 */
export function resolveWorkingDir(paths: PathWalker, input: string): string {
  try {
    const directory = openDirectory(paths, input, 'workspace.working_dir');
    try {
      return directory.realPath();
    } finally {
      directory.close();
    }
  } catch (error) {
    throw pathHttpError(error, 'git');
  }
}
