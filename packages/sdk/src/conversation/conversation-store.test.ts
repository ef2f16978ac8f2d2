import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveHistoryLimits } from './conversation-history-limits.js';
import { ConversationStore } from './conversation-store.js';
import {
  type PersistedConversationState,
  readPersistedState,
} from './persisted-conversation-state.js';

const state = (title: string): PersistedConversationState => ({
  id: 'conversation',
  execution_status: 'idle',
  agent: null,
  created_at: '2026-01-01T00:00:00.000000Z',
  updated_at: '2026-01-01T00:00:00.000000Z',
  title,
});

describe('ConversationStore state writes', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'conversation-store-'));
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('writes only the newest of the states queued before a write could start', async () => {
    const store = await ConversationStore.create(
      directory,
      state('created'),
      resolveHistoryLimits(),
    );
    try {
      for (let index = 1; index <= 5; index++) {
        store.append(`{"n":${index}}`, 8);
        store.saveState(state(`title ${index}`));
      }
      await store.flush();
      expect(store.stateWrites).toBe(1);
      expect((await readPersistedState(directory)).title).toBe('title 5');
      // One queued after the last write started is written too: the newest always lands.
      store.saveState(state('after'));
      await store.flush();
      expect(store.stateWrites).toBe(2);
      expect((await readPersistedState(directory)).title).toBe('after');
    } finally {
      await store.close();
    }
  });
});
