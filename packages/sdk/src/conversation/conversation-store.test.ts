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
  const newStore = () =>
    ConversationStore.create(directory, state('created'), resolveHistoryLimits());

  it('writes only the newest of the states queued before a write could start', async () => {
    const store = await newStore();
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

  it('writes lines appended before the queue reaches them together, in order, at their positions', async () => {
    const store = await newStore();
    try {
      const lines = Array.from({ length: 6 }, (_, index) => `{"n":${index}}`);
      const positions: number[] = [];
      for (const [index, line] of lines.entries()) {
        positions.push(store.append(line, line.length + 1));
        // A state and a flush queued between lines: lines after them are written all the same.
        if (index === 2) store.saveState(state('middle'));
        if (index === 3) void store.flush();
      }
      await store.flush();
      const text = await readFile(path.join(directory, EVENTS_FILE), 'utf8');
      expect(text).toBe(`${lines.join('\n')}\n`);
      expect(positions).toEqual(lines.map((_, index) => text.indexOf(lines[index]!)));
      expect(store.end).toBe(text.length);
      // A line appended once the batch was written starts a batch of its own.
      const last = '{"n":6}';
      expect(store.append(last, last.length + 1)).toBe(text.length);
      await store.flush();
      expect(await readFile(path.join(directory, EVENTS_FILE), 'utf8')).toBe(`${text}${last}\n`);
    } finally {
      await store.close();
    }
  });
});
