import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AGENT_SERVER_ROUTES, conversationPath } from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSocketClient } from '../test-support/test-socket-client.js';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';
import { CONVERSATIONS_DIR } from './conversation-directories.js';
import { DEFAULT_CONVERSATION_MAX_EVENT_BYTES } from './conversation-service-options.js';
import { MAX_EVENT_PAGE_BYTES } from './search-conversation-events.js';
import {
  allEventPages,
  api,
  scriptedAgent,
  startRequest,
  waitForStatus,
} from './test-support/conversation-api.js';

const R = AGENT_SERVER_ROUTES;

/** Commands printing a little more than 300 KB each (different, or the agent counts as stuck). */
const COMMANDS = Array.from(
  { length: 20 },
  (_, step) => `head -c ${300_000 + step} /dev/zero | tr '\\0' a`,
);

const lineBytes = (event: unknown) => Buffer.byteLength(JSON.stringify(event)) + 1;

describe('conversation events of a history larger than a page', () => {
  let server: TestServer;
  let stateDir: string;
  let id: string;
  /** The events as the server wrote them. */
  let written: { id: string; kind: string }[];

  beforeAll(async () => {
    stateDir = await mkdtemp(path.join(os.tmpdir(), 'conversation-events-state-'));
    server = await startTestServer({ stateDir });
    const created = await api(
      server.url,
      'POST',
      R.conversations,
      startRequest(server.dir, scriptedAgent(...COMMANDS)),
    );
    id = created.json.id;
    await waitForStatus(server.url, id, 'finished');
    const file = path.join(stateDir, CONVERSATIONS_DIR, id, 'conversation', 'events.jsonl');
    written = (await readFile(file, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  }, 60_000);

  afterAll(async () => {
    await server.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  it('cuts each oversized observation to maxEventBytes with a marker saying how much went', () => {
    const observations = written.filter((event) => event.kind === 'ObservationEvent');
    expect(observations).toHaveLength(COMMANDS.length + 1); // and finish's
    for (const observation of observations.slice(0, -1)) {
      expect(lineBytes(observation)).toBeLessThanOrEqual(DEFAULT_CONVERSATION_MAX_EVENT_BYTES);
      expect(JSON.stringify(observation)).toMatch(
        /\[\.\.\. \d+ bytes cut: the event was larger than 262144 bytes \.\.\.\]/,
      );
    }
  });

  it('pages in at most 100 events and about 4 MiB, and next_page_id continues to the end', async () => {
    const total = written.reduce((sum, event) => sum + lineBytes(event), 0);
    expect(total).toBeGreaterThan(MAX_EVENT_PAGE_BYTES);
    const { pages, events } = await allEventPages(server.url, id);
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages) {
      const bytes = page.json.items.reduce(
        (sum: number, event: unknown) => sum + lineBytes(event),
        0,
      );
      expect(page.json.items.length).toBeGreaterThan(0);
      expect(bytes).toBeLessThanOrEqual(MAX_EVENT_PAGE_BYTES);
      expect(Buffer.byteLength(page.text)).toBeLessThan(MAX_EVENT_PAGE_BYTES + 64 * 1024);
    }
    expect(events).toEqual(written);

    const descending = await allEventPages(server.url, id, { query: '&sort_order=TIMESTAMP_DESC' });
    expect(descending.events).toEqual([...written].reverse());
    const filtered = await allEventPages(server.url, id, {
      limit: 7,
      query: '&kind=ObservationEvent',
    });
    expect(filtered.events).toEqual(written.filter((event) => event.kind === 'ObservationEvent'));
    const count = await api(
      server.url,
      'GET',
      `${conversationPath(R.countConversationEvents, id)}?kind=ObservationEvent`,
    );
    expect(count.json).toBe(COMMANDS.length + 1);
  });

  it('finds an event by id and as a page_id without a page having named it', async () => {
    const early = written[3]!;
    const one = await api(server.url, 'GET', conversationPath(R.conversationEvent, id, early.id));
    expect(one.json).toEqual(early);
    const page = await api(
      server.url,
      'GET',
      `${conversationPath(R.searchConversationEvents, id)}?limit=2&page_id=${early.id}`,
    );
    expect(page.json.items).toEqual(written.slice(3, 5));
    expect(page.json.next_page_id).toBe(written[5]!.id);
    const unknown = await api(
      server.url,
      'GET',
      `${conversationPath(R.searchConversationEvents, id)}?page_id=${crypto.randomUUID()}`,
    );
    expect(unknown.json).toEqual({ items: [], next_page_id: null });
    const final = await api(server.url, 'GET', conversationPath(R.agentFinalResponse, id));
    expect(final.json).toEqual({ response: 'all done' });
  });

  it('replays the history on the events socket, then live events, none twice', async () => {
    const url = `${server.url}${conversationPath(R.conversationEventsSocket, id)}?resend_mode=all`;
    const client = await TestSocketClient.open(url);
    try {
      const snapshot = await client.next();
      expect(snapshot).toMatchObject({ key: 'full_state', value: { id } });
      const replayed: { id: string }[] = [];
      for (let index = 0; index < written.length; index++) replayed.push(await client.next());
      expect(replayed).toEqual(written);
      client.send({ role: 'user', content: [{ type: 'text', text: 'again' }] });
      const message = await client.next((frame) => frame.kind === 'MessageEvent');
      expect(JSON.stringify(message)).toContain('again');
      await client.next((frame) => frame.key === 'full_state');
      const ids = client.frames.map((frame) => frame.id);
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      await client.close();
    }
  });
});
