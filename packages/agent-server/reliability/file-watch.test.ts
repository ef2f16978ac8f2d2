import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startSymlinkFlipper } from '@agent-workspace/core/testing';
import {
  AGENT_SERVER_ROUTES,
  MAX_FILE_EVENTS_PER_SECOND,
  MAX_FILE_WATCH_SOCKETS,
  MAX_PATH_BYTES,
  MAX_QUEUED_FILE_EVENTS,
} from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Figures } from './support/figures.js';
import { call } from './support/http.js';
import { createScratch, type Scratch, ServerProcess } from './support/server-process.js';
import { WsClient } from './support/websocket.js';

/** Files made while a watch's client reads nothing. */
const FLOOD_FILES = 40_000;

/** Watches opened while a link flips between inside and outside. */
const RACE_TRIES = 300;

const watchPath = (query: Record<string, string>): string =>
  `${AGENT_SERVER_ROUTES.fileWatchSocket}?${new URLSearchParams(query)}`;

describe('file-watch socket under attack (--confine-to-working-dir)', () => {
  let scratch: Scratch;
  let server: ServerProcess;
  let work: string;
  let outside: string;
  const marker = `OUTSIDE-${randomBytes(8).toString('hex')}`;
  const hostile = new Figures('file watch: outside paths and hostile queries');
  const race = new Figures('file watch: symlink swaps');
  const many = new Figures('file watch: many watchers and a flood');

  beforeAll(async () => {
    scratch = await createScratch('file-watch');
    work = scratch.workingDir;
    outside = path.join(scratch.base, 'outside');
    mkdirSync(path.join(outside, 'sub'), { recursive: true });
    mkdirSync(path.join(work, 'inside', 'child'), { recursive: true });
    symlinkSync(outside, path.join(work, 'escape'));
    symlinkSync(path.join(work, 'inside'), path.join(work, 'flip'));
    server = await ServerProcess.start({
      workingDir: work,
      runtimeDir: scratch.runtimeDir,
      flags: ['--confine-to-working-dir'],
    });
  });
  afterAll(async () => {
    for (const figures of [hostile, race, many]) {
      figures.observeRss(server?.peakRss ?? 0);
      figures.save();
    }
    await server?.stop();
    await scratch?.remove();
  });

  /** The first frame of a watch on `query`: `ready` or `error`. */
  const firstFrame = async (query: Record<string, string>) => {
    const client = await WsClient.connect(server.url, watchPath(query));
    const frame = await client.waitFor(() => true);
    return { client, frame };
  };

  it('refuses every path outside with FORBIDDEN naming path, and malformed queries at the handshake', async () => {
    for (const target of [
      '/',
      '/etc',
      '/proc/self/root',
      '..',
      '../outside',
      'inside/../..',
      'escape',
      'escape/sub',
      `${work}/escape`,
      outside,
    ]) {
      for (const recursive of ['false', 'true']) {
        hostile.tried++;
        const { client, frame } = await firstFrame({ path: target, recursive });
        expect(frame, target).toMatchObject({ type: 'error', code: 'FORBIDDEN', field: 'path' });
        expect((await client.closed).code).toBe(1000);
        hostile.rejected++;
      }
    }
    const missing = await firstFrame({ path: 'inside/missing' });
    expect(missing.frame).toMatchObject({ type: 'error', code: 'NOT_FOUND', field: 'path' });

    for (const query of [
      {},
      { path: '' },
      { path: 'a\0b' },
      { path: 'x'.repeat(MAX_PATH_BYTES + 1) },
      { path: '.', recursive: 'maybe' },
      { path: '.', max_queued_events: '0' },
      { path: '.', max_queued_events: String(MAX_QUEUED_FILE_EVENTS + 1) },
      { path: '.', max_queued_events: '1e400' },
      { path: '.', max_queued_events: 'NaN' },
      { path: '.', max_events_per_second: '0' },
      { path: '.', max_events_per_second: String(MAX_FILE_EVENTS_PER_SECOND + 1) },
      { path: '.', max_events_per_second: '1e400' },
      { path: '.', max_events_per_second: '2.5' },
    ]) {
      hostile.tried++;
      await expect(
        WsClient.connect(server.url, watchPath(query as Record<string, string>)),
        JSON.stringify(query).slice(0, 80),
      ).rejects.toThrow(/upgrade refused with 4\d\d/);
      hostile.rejected++;
    }
    const alive = await call(`${server.url}/alive`);
    expect(alive.status).toBe(200);
  });

  it('never reports a change outside while the watched path flips between inside and outside', async () => {
    const flipper = await startSymlinkFlipper(path.join(work, 'flip'), [
      path.join(work, 'inside'),
      outside,
    ]);
    const ready: WsClient[] = [];
    try {
      for (let tried = 0; tried < RACE_TRIES; tried++) {
        race.tried++;
        const { client, frame } = await firstFrame({ path: 'flip', recursive: 'true' });
        if (frame?.type === 'ready') {
          ready.push(client);
        } else {
          expect(frame).toMatchObject({ type: 'error', code: 'FORBIDDEN' });
          race.rejected++;
        }
        if (ready.length >= MAX_FILE_WATCH_SOCKETS - 2) break;
      }
    } finally {
      race.note = `${await flipper.stop()} flips`;
    }
    expect(ready.length).toBeGreaterThan(0);
    writeFileSync(path.join(outside, `${marker}.txt`), marker);
    writeFileSync(path.join(outside, 'sub', `${marker}.txt`), marker);
    writeFileSync(path.join(work, 'inside', 'child', 'inside-marker'), '');
    for (const client of ready) {
      const seen = await client.waitFor((frame) => frame.path === 'child/inside-marker');
      expect(seen, JSON.stringify(client.frames)).toBeDefined();
      const leaked = client.frames.filter((frame) => JSON.stringify(frame).includes(marker));
      race.escapes += leaked.length;
      expect(leaked).toEqual([]);
      client.close();
      await client.closed;
    }
  }, 120_000);

  it(`serves ${MAX_FILE_WATCH_SOCKETS} watchers, closes one more with 1013, frees slots when clients go, bounds a flood`, async () => {
    const open: WsClient[] = [];
    for (let index = 0; index < MAX_FILE_WATCH_SOCKETS; index++) {
      many.tried++;
      const { client, frame } = await firstFrame({ path: 'inside' });
      expect(frame).toEqual({ type: 'ready' });
      open.push(client);
    }
    const extra = await WsClient.connect(server.url, watchPath({ path: 'inside' }));
    expect((await extra.closed).code).toBe(1013);
    many.rejected++;
    // Dropped without a close frame: the server still notices and frees every slot.
    for (const client of open) client.close(true);
    await Promise.all(open.map((client) => client.closed));

    const flood = path.join(work, 'flood');
    mkdirSync(flood);
    let slow: WsClient | undefined;
    for (let attempt = 0; attempt < 50 && slow === undefined; attempt++) {
      const { client, frame } = await firstFrame({ path: 'flood', max_queued_events: '4' });
      if (frame?.type === 'ready') slow = client;
      else client.close();
    }
    if (slow === undefined) throw new Error('no slot came back after the clients went');
    // A client that reads nothing: long names fill the socket buffers, then the server's queue.
    slow.socket.pause();
    const long = 'n'.repeat(200);
    for (let index = 0; index < FLOOD_FILES; index++) {
      writeFileSync(path.join(flood, `${long}-${index}`), '');
    }
    slow.socket.resume();
    expect(await slow.waitFor((frame) => frame.type === 'overflow', 60_000)).toBeDefined();
    // Events are accepted again once the overflow is taken; while the flood's tail still
    // overflows the queue (it drains at max_events_per_second), a new change may be dropped too.
    let after: unknown;
    for (let attempt = 0; attempt < 60 && after === undefined; attempt++) {
      writeFileSync(path.join(flood, 'after'), String(attempt));
      after = await slow.waitFor((frame) => frame.path === 'after', 1000);
    }
    expect(after).toBeDefined();
    const counted = slow.frames.length;
    expect(counted).toBeLessThan(FLOOD_FILES);
    many.note = `${counted} frames for ${FLOOD_FILES} files with max_queued_events=4`;
    slow.close();
    rmSync(flood, { recursive: true, force: true });
    expect((await call(`${server.url}/alive`)).status).toBe(200);
  }, 120_000);

  it('paces a flood at max_events_per_second: a burst, then the rate, merging and overflowing meanwhile', async () => {
    const flood = path.join(work, 'paced');
    mkdirSync(flood);
    const rate = 5;
    const { client, frame } = await firstFrame({
      path: 'paced',
      max_queued_events: '8',
      max_events_per_second: String(rate),
    });
    expect(frame).toEqual({ type: 'ready' });
    const started = performance.now();
    for (let index = 0; index < 200; index++) writeFileSync(path.join(flood, `f-${index}`), '');
    expect(await client.waitFor((seen) => seen.type === 'overflow', 60_000)).toBeDefined();
    const elapsedSeconds = (performance.now() - started) / 1000;
    const changes = client.frames.filter((seen) => seen.type !== 'ready');
    // The burst (as deep as the rate), then at most the rate: never more, however slow the machine.
    expect(changes.length).toBeLessThanOrEqual(rate + Math.ceil(elapsedSeconds * rate) + 1);
    many.note += `; ${changes.length} frames in ${elapsedSeconds.toFixed(1)} s at max_events_per_second=${rate}`;
    client.close();
    rmSync(flood, { recursive: true, force: true });
  }, 120_000);
});
