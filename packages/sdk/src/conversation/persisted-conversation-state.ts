import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { WorkspaceError } from '@agent-workspace/core';
import { DirectoryHandle, writeStreamAtomic } from '@agent-workspace/core/internal';
import { CONVERSATION_EXECUTION_STATUSES } from '@agent-workspace/protocol';
import { z } from 'zod';

/** File of a persisted conversation's state (rewritten atomically on each change). */
export const STATE_FILE = 'state.json';

const persistedStateSchema = z.looseObject({
  id: z.string().min(1),
  execution_status: z.enum(CONVERSATION_EXECUTION_STATUSES),
  agent: z.record(z.string(), z.unknown()).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  /** Set by `LocalConversation.setTitle` (absent in older files). */
  title: z.string().nullable().optional(),
});

/** The state file's content. */
export type PersistedConversationState = z.infer<typeof persistedStateSchema>;

/**
 * The state file of the conversation in `directory`.
 * @throws WorkspaceError `NOT_FOUND` (field `persistenceDir`) without one, `INVALID_CONFIG`
 * naming the file and field when it is not a state.
 */
export async function readPersistedState(directory: string): Promise<PersistedConversationState> {
  const statePath = path.join(directory, STATE_FILE);
  let stateText: string;
  try {
    stateText = await readFile(statePath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new WorkspaceError({
      code: 'NOT_FOUND',
      message: `persistenceDir (${directory}) holds no conversation: ${STATE_FILE} is missing`,
      details: { field: 'persistenceDir', path: statePath },
    });
  }
  return parseOrThrow(persistedStateSchema, stateText, statePath);
}

/** Writes the state file of the conversation in `directory` atomically and durably. */
export async function writePersistedState(
  directory: string,
  state: PersistedConversationState,
): Promise<void> {
  await writeFileAtomic(path.join(directory, STATE_FILE), `${JSON.stringify(state)}\n`);
}

/** True when `directory` holds a state file. */
export async function hasPersistedState(directory: string): Promise<boolean> {
  return exists(path.join(directory, STATE_FILE));
}

function parseOrThrow<T>(schema: z.ZodType<T>, text: string, file: string): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new WorkspaceError({
      code: 'INVALID_CONFIG',
      message: `${file} is not JSON: ${(error as Error).message}`,
      details: { path: file },
    });
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join('.') || '(root)';
  throw new WorkspaceError({
    code: 'INVALID_CONFIG',
    message: `${file}: ${field}: ${issue.message}`,
    details: { path: file, field },
  });
}

/** Writes `text` aside, syncs it and renames it over `file`: readers see the old or the new. */
async function writeFileAtomic(file: string, text: string): Promise<void> {
  await writeStreamAtomic({
    source: Readable.from([text]),
    directory: DirectoryHandle.byPath(path.dirname(file)),
    name: path.basename(file),
    mode: 0o600,
    durable: true,
  });
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
