import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AGENT_SERVER_ROUTES, conversationPath } from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allEventPages,
  api,
  scriptedAgent,
  startRequest,
  waitForStatus,
} from '../conversations/test-support/conversation-api.js';
import { TestSocketClient } from '../test-support/test-socket-client.js';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

/** `2026-…T10:00:00.123456Z` written at `hours` offset: `2026-…T12:00:00.123456+02:00`. */
function withOffset(timestamp: string, hours: number): string {
  const shifted = new Date(Date.parse(timestamp) + hours * 3_600_000).toISOString();
  const sign = hours < 0 ? '-' : '+';
  const offset = `${sign}${String(Math.abs(hours)).padStart(2, '0')}:00`;
  return `${shifted.slice(0, 23)}${timestamp.slice(23, 26)}${offset}`;
}

describe('events socket resend_mode', () => {
  let server: TestServer;
  let stateDir: string;
  let socketUrl: string;
  let written: { id: string; timestamp: string }[];

  beforeAll(async () => {
    stateDir = await mkdtemp(path.join(os.tmpdir(), 'events-socket-resend-'));
    server = await startTestServer({ stateDir });
    const created = await api(
      server.url,
      'POST',
      AGENT_SERVER_ROUTES.conversations,
      startRequest(server.dir, scriptedAgent('echo one', 'echo two', 'echo three')),
    );
    const id: string = created.json.id;
    await waitForStatus(server.url, id, 'finished');
    // The events as the server serves them (REST), which the socket must replay alike.
    written = (await allEventPages(server.url, id)).events as unknown as typeof written;
    socketUrl = `${server.url}${conversationPath(AGENT_SERVER_ROUTES.conversationEventsSocket, id)}`;
  }, 60_000);

  afterAll(async () => {
    await server.close();
    await rm(stateDir, { recursive: true, force: true });
  });

  /**
   * The events of the first run (`written`) among the frames after the `full_state` snapshot,
   * until the echo of a message sent after it (each call's message adds events of its own).
   */
  async function replayed(query: string): Promise<{ id: string }[]> {
    const client = await TestSocketClient.open(`${socketUrl}?${query}`);
    try {
      expect(await client.next()).toMatchObject({ key: 'full_state' });
      const marker = `marker-${crypto.randomUUID()}`;
      client.send({ role: 'user', content: [{ type: 'text', text: marker }] });
      const frames: { id: string }[] = [];
      for (;;) {
        const frame = await client.next<{ id: string; kind: string }>();
        if (frame.kind === 'MessageEvent' && JSON.stringify(frame).includes(marker)) break;
        if (written.some((event) => event.id === frame.id)) frames.push(frame);
      }
      return frames;
    } finally {
      await client.close();
    }
  }

  it('replays the events at or after after_timestamp, whatever its offset', async () => {
    expect(written.length).toBeGreaterThan(6);
    const cut = written[4]!.timestamp;
    const expected = written.filter((event) => event.timestamp >= cut).map((event) => event.id);
    expect(expected.length).toBeLessThan(written.length);
    for (const after of [cut, withOffset(cut, 2), withOffset(cut, -5), cut.slice(0, -1)]) {
      const frames = await replayed(
        `resend_mode=since&after_timestamp=${encodeURIComponent(after)}`,
      );
      expect(frames.map((frame) => frame.id)).toEqual(expected);
    }
  });

  it('replays everything with resend_mode=all and nothing with since but no after_timestamp', async () => {
    expect((await replayed('resend_mode=all')).map((frame) => frame.id)).toEqual(
      written.map((event) => event.id),
    );
    expect(await replayed('resend_mode=since')).toEqual([]);
    // The deprecated resend_all does not override an explicit mode.
    expect(await replayed('resend_mode=since&resend_all=true')).toEqual([]);
  });

  it('refuses an unknown mode or a malformed after_timestamp at the handshake with 422', async () => {
    for (const query of [
      'resend_mode=everything',
      'resend_mode=since&after_timestamp=yesterday',
      'resend_mode=since&after_timestamp=2026-02-30T00:00:00Z',
    ]) {
      await expect(TestSocketClient.open(`${socketUrl}?${query}`)).rejects.toThrow('HTTP 422');
    }
  });
});
