import { mkdir, rm } from 'node:fs/promises';
import { WorkspaceError } from '@agent-workspace/core';
import { type ForkConversationRequestWire, formatWireTimestamp } from '@agent-workspace/protocol';
import type { ConversationSecrets, LocalConversation } from '@agent-workspace/sdk';
import { HttpError } from '../app/http-error.js';
import { conversationDir, persistenceDirOf } from './conversation-directories.js';
import { type ConversationMeta, writeMeta } from './conversation-meta.js';
import type { HeldConversation } from './conversation-record.js';
import { secretsOf } from './conversation-secrets-of.js';
import type { ConversationOpening, OpenedConversation } from './open-conversation.js';

/**
 * Makes conversation `forkId`, a fork of `source` (OpenHands' `POST …/fork`): a new directory
 * with the source's kept events up to `from_event_id` (default all, same event ids), status
 * `idle`, the source's agent, working directory, limits and stuck detection, `title` and `tags`
 * of the request, and `forked_from_conversation_id` / `forked_from_event_id`; `meta.json` is
 * written last. The source's secrets are copied into the fork's own registry (in memory, as
 * OpenHands copies them). What a failed fork made is removed.
 * @throws HttpError 404 for a `from_event_id` the source does not hold.
 */
export async function forkConversation(
  opening: ConversationOpening,
  fork: { source: HeldConversation; forkId: string; request: ForkConversationRequestWire },
): Promise<
  OpenedConversation & {
    meta: ConversationMeta;
    dir: string | undefined;
    secrets: ConversationSecrets;
  }
> {
  const { source, forkId, request } = fork;
  const secrets = (await secretsOf(source.record)).copy();
  const { options, history } = opening;
  const meta: ConversationMeta = {
    ...source.record.meta,
    id: forkId,
    title: request.title ?? null,
    tags: request.tags ?? {},
    created_at: formatWireTimestamp(new Date()),
    forked_from_conversation_id: source.record.meta.id,
    forked_from_event_id: request.from_event_id ?? null,
  };
  const dir = conversationDir(options.stateDir, forkId);
  if (dir !== undefined) {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true, mode: 0o700 });
  }
  const workspace = options.workspace({
    workingDir: meta.workspace.working_dir,
    conversationId: forkId,
  });
  let conversation: LocalConversation | undefined;
  try {
    conversation = await source.conversation.fork({
      conversationId: forkId,
      fromEventId: request.from_event_id ?? undefined,
      workspace,
      persistenceDir: dir === undefined ? undefined : persistenceDirOf(dir),
      stuckDetection: meta.stuck_detection,
      actions: options.actions(),
      history,
      secrets,
    });
    if (dir !== undefined) await writeMeta(dir, meta);
    return { meta, dir, conversation, workspace, secrets };
  } catch (error) {
    await conversation?.close().catch(() => undefined);
    await workspace.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    if (WorkspaceError.isInstance(error, 'NOT_FOUND') && error.details.field === 'fromEventId') {
      throw new HttpError(404, `Unknown from_event_id: ${request.from_event_id}`);
    }
    throw error;
  }
}
