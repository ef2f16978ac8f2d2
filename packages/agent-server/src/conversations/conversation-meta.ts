import { Readable } from 'node:stream';
import { DirectoryHandle, writeStreamAtomic } from '@agent-workspace/core/internal';

/** Name of the server's own record of a conversation (beside the sdk's `conversation/`). */
export const META_FILE = 'meta.json';

/** What the server keeps about a conversation besides the sdk's state and events. */
export interface ConversationMeta {
  id: string;
  workspace: Record<string, unknown> & { working_dir: string };
  title: string | null;
  tags: Record<string, string>;
  max_iterations: number;
  stuck_detection: boolean;
  created_at: string;
  /** The conversation this one was forked from (absent: not a fork). */
  forked_from_conversation_id?: string | null | undefined;
  /** The last event the fork copied, when the fork named one. */
  forked_from_event_id?: string | null | undefined;
}

/** Writes `meta.json` of the conversation in `dir` atomically and durably, private to the server. */
export async function writeMeta(dir: string, meta: ConversationMeta): Promise<void> {
  await writeStreamAtomic({
    source: Readable.from([`${JSON.stringify(meta)}\n`]),
    directory: DirectoryHandle.byPath(dir),
    name: META_FILE,
    mode: 0o600,
    durable: true,
  });
}
