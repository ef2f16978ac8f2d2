import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveHistoryLimits } from './conversation-history-limits.js';
import { ConversationStore, EVENTS_FILE } from './conversation-store.js';
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

  const createStore = () =>
    ConversationStore.create(directory, state('created'), resolveHistoryLimits());

  it('writes only the newest of the states queued before a write could start', async () => {
    const store = await createStore();
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

  it('writes lines appended back to back in one write, in order around the other writes', async () => {
    const store = await createStore();
    try {
      const positions = [1, 2, 3].map((index) => store.append(`{"n":${index}}`, 8));
      store.saveState(state('between'));
      positions.push(...[4, 5].map((index) => store.append(`{"n":${index}}`, 8)));
      await store.flush();
      // Lines 1–3, the state, then lines 4–5: three writes, not six.
      expect(store.lineWrites).toBe(2);
      expect(store.stateWrites).toBe(1);
      expect(positions).toEqual([0, 8, 16, 24, 32]);
      const lines = [1, 2, 3, 4, 5].map((index) => `{"n":${index}}\n`).join('');
      expect(await readFile(path.join(directory, EVENTS_FILE), 'utf8')).toBe(lines);
      // Once the queue is done, a line is a write of its own.
      store.append('{"n":6}', 8);
      await store.flush();
      expect(store.lineWrites).toBe(3);
    } finally {
      await store.close();
    }
  });
});
