import { randomBytes } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startSymlinkFlipper } from '@agent-workspace/core/testing';
import {
  DIRECTORY_LISTING_ROUTE,
  type DirectoryListingPageWire,
  MAX_DIRECTORY_LISTING_PAGE_ID_CHARS,
  MAX_DIRECTORY_LISTING_PAGE_LIMIT,
  MAX_DIRECTORY_LISTING_SCANNED_ENTRIES,
  MAX_PATH_BYTES,
} from '@agent-workspace/protocol';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Figures } from './support/figures.js';
import {
  type Answer,
  type CallOptions,
  call,
  HOSTILE_NAMES,
  keepAliveCall,
} from './support/http.js';
import { attempt, describeOutcome } from './support/outcome.js';
import { createScratch, type Scratch, ServerProcess } from './support/server-process.js';

/** Listings tried while a link flips between inside and outside. */
const RACE_TRIES = 800;

describe('directory-listing route under attack (--confine-to-working-dir)', () => {
  let scratch: Scratch;
  let server: ServerProcess;
  let work: string;
  let outside: string;
  let agent: Agent;
  const marker = `OUTSIDE-${randomBytes(8).toString('hex')}`;
  const hostile = new Figures('directory listing: outside paths and hostile input');
  const huge = new Figures('directory listing: huge directory');
  const race = new Figures('directory listing: symlink swaps');

  beforeAll(async () => {
    scratch = await createScratch('directory-listing');
    work = scratch.workingDir;
    outside = path.join(scratch.base, 'outside');
    // The marker is only ever seen by listing outside: never in a path a client sends.
    mkdirSync(path.join(outside, 'sub'), { recursive: true });
    writeFileSync(path.join(outside, `${marker}.txt`), marker);
    writeFileSync(path.join(outside, 'sub', `${marker}.txt`), marker);
    mkdirSync(path.join(work, 'inside', 'child'), { recursive: true });
    symlinkSync(outside, path.join(work, 'escape'));
    symlinkSync(path.join(work, 'inside'), path.join(work, 'flip'));
    server = await ServerProcess.start({
      workingDir: work,
      runtimeDir: scratch.runtimeDir,
      flags: ['--confine-to-working-dir'],
      env: { HOME: outside },
    });
    agent = new Agent({ connections: 8 });
  });
  afterAll(async () => {
    for (const figures of [hostile, huge, race]) {
      figures.observeRss(server?.peakRss ?? 0);
      figures.save();
    }
    await agent?.close();
    await server?.stop();
    await scratch?.remove();
  });

  const options = (extra?: CallOptions): CallOptions => keepAliveCall(agent, extra);
  const listUrl = (query: Record<string, string>) =>
    `${server.url}${DIRECTORY_LISTING_ROUTE}?${new URLSearchParams(query)}`;
  const list = (query: Record<string, string>) => call(listUrl(query), options());

  it('refuses every path outside and every malformed parameter with a 4xx naming it', async () => {
    /** [query, expected status, text the detail must hold] */
    const cases: [Record<string, string>, number, string][] = [];
    for (const target of [
      '/',
      '/etc',
      '/proc/self/root',
      outside,
      path.join(outside, 'sub'),
      `${work}/..`,
      `${work}/../outside`,
      `${work}/inside/../../outside`,
      path.join(work, 'escape'),
      path.join(work, 'escape', 'sub'),
    ]) {
      cases.push([{ path: target }, 403, 'outside the working directory']);
      cases.push([{ path: target, include_hidden: 'true' }, 403, 'outside the working directory']);
    }
    cases.push(
      [{ path: 'relative' }, 400, 'Path must be absolute'],
      [{ path: path.join(work, 'missing') }, 404, 'Directory not found'],
      [{ path: `${work}/a\0b` }, 422, 'path'],
      [{ path: `${work}/${'x'.repeat(MAX_PATH_BYTES)}` }, 422, 'path'],
      [{ path: path.join(work, 'n'.repeat(300)) }, 400, 'too long'],
      [{ path: work, limit: '0' }, 422, 'limit'],
      [{ path: work, limit: '-1' }, 422, 'limit'],
      [{ path: work, limit: String(MAX_DIRECTORY_LISTING_PAGE_LIMIT + 1) }, 422, 'limit'],
      [{ path: work, limit: '1e9' }, 422, 'limit'],
      [{ path: work, limit: 'NaN' }, 422, 'limit'],
      [{ path: work, include_hidden: 'maybe' }, 422, 'include_hidden'],
      [{ path: work, page_id: '../../etc' }, 422, 'page_id'],
      [{ path: work, page_id: 'd/a\0b' }, 422, 'page_id'],
      [
        { path: work, page_id: `e/${'p'.repeat(MAX_DIRECTORY_LISTING_PAGE_ID_CHARS)}` },
        422,
        'page_id',
      ],
    );
    const problems: string[] = [];
    for (const [query, status, detail] of cases) {
      hostile.tried++;
      const answer = await list(query);
      const ok =
        answer.status === status && answer.text.includes(detail) && !answer.text.includes(marker);
      if (ok) hostile.rejected++;
      else {
        hostile.escapes++;
        problems.push(`${answer.status} ${answer.text.slice(0, 200)} (wanted ${status} ${detail})`);
      }
    }
    expect(problems).toEqual([]);
    // Inside, a link leading out is reported as a link and never followed.
    const inside = await list({ path: work });
    expect(inside.status).toBe(200);
    expect((inside.json as DirectoryListingPageWire).items).toContainEqual({
      name: 'escape',
      type: 'symlink',
      size: null,
    });
    expect(inside.text).not.toContain(marker);
  });

  it('lists hostile names verbatim', async () => {
    const base = path.join(work, 'hostile');
    mkdirSync(base);
    for (const name of HOSTILE_NAMES) writeFileSync(path.join(base, name), name);
    hostile.tried++;
    const listed = await list({ path: base, include_hidden: 'true' });
    expect(listed.status).toBe(200);
    const items = (listed.json as DirectoryListingPageWire).items;
    expect(items.map((item) => item.name).sort()).toEqual([...HOSTILE_NAMES].sort());
    for (const item of items) {
      expect(item).toEqual({ name: item.name, type: 'file', size: Buffer.byteLength(item.name) });
    }
    hostile.rejected++;
  });

  it(`stops a huge directory at ${MAX_DIRECTORY_LISTING_SCANNED_ENTRIES} entries and says so`, async () => {
    const big = path.join(work, 'big');
    mkdirSync(big);
    const count = MAX_DIRECTORY_LISTING_SCANNED_ENTRIES + 2000;
    for (let index = 0; index < count; index++) {
      if (index % 500 === 0) mkdirSync(path.join(big, `dir-${index}`));
      else writeFileSync(path.join(big, `file-${index}`), '');
    }
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        list({ path: big, limit: String(MAX_DIRECTORY_LISTING_PAGE_LIMIT) }),
      ),
    );
    for (const answer of answers) {
      huge.tried++;
      expect(answer.status).toBe(200);
      const page = answer.json as DirectoryListingPageWire;
      expect(page.truncated).toBe(true);
      expect(page.items).toHaveLength(MAX_DIRECTORY_LISTING_PAGE_LIMIT);
      expect(page.items[0]?.type).toBe('directory');
      expect(page.next_page_id).not.toBeNull();
      huge.rejected++;
    }
    // Paging on goes forward and ends.
    const first = answers[0]?.json as DirectoryListingPageWire;
    let pageId: string | null = first.next_page_id;
    let pages = 1;
    let seen = MAX_DIRECTORY_LISTING_PAGE_LIMIT;
    while (pageId !== null && pages < 200) {
      const answer = await list({
        path: big,
        limit: String(MAX_DIRECTORY_LISTING_PAGE_LIMIT),
        page_id: pageId,
      });
      expect(answer.status).toBe(200);
      const page = answer.json as DirectoryListingPageWire;
      seen += page.items.length;
      pageId = page.next_page_id;
      pages++;
    }
    expect(pageId).toBeNull();
    expect(seen).toBeLessThanOrEqual(MAX_DIRECTORY_LISTING_SCANNED_ENTRIES);
    huge.note = `${count} entries, ${MAX_DIRECTORY_LISTING_SCANNED_ENTRIES} read per request, ${pages} pages`;
    expect(server.exit).toBeUndefined();
  });

  it('never lists anything outside while a link flips', async () => {
    const flipper = await startSymlinkFlipper(path.join(work, 'flip'), [
      path.join(work, 'inside'),
      outside,
    ]);
    const unexpected: string[] = [];
    const tally = { inside: 0, refused: 0, escapes: 0 };
    let flips = 0;
    try {
      for (let index = 0; index < RACE_TRIES; index++) {
        race.tried++;
        const query = { path: path.join(work, 'flip'), include_hidden: 'true' };
        const outcome = await attempt(listUrl(query), options());
        if (outcome.kind !== 'answer') {
          unexpected.push(describeOutcome(outcome));
          continue;
        }
        const answer: Answer = outcome.answer;
        if (answer.text.includes(marker)) tally.escapes++;
        else if (answer.status === 403 || answer.status === 404) tally.refused++;
        else if (answer.status === 200 && answer.text.includes('"child"')) tally.inside++;
        else unexpected.push(`${answer.status} ${answer.text.slice(0, 200)}`);
      }
    } finally {
      flips = await flipper.stop();
    }
    race.rejected += tally.refused;
    race.escapes += tally.escapes;
    race.note = `${flips} flips; ${tally.inside} inside / ${tally.refused} refused / ${tally.escapes} escapes`;
    expect(flips, 'the link hardly flipped').toBeGreaterThan(300);
    expect(tally.refused, 'no try was refused').toBeGreaterThan(0);
    expect(tally.inside, 'no try got through inside').toBeGreaterThan(0);
    expect(tally.escapes).toBe(0);
    expect([...new Set(unexpected)]).toEqual([]);
    expect(server.exit).toBeUndefined();
  });
});
