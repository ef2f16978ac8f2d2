import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startSymlinkFlipper } from '@agent-workspace/core/testing';
import {
  FILE_BROWSER_ROUTES,
  MAX_PATH_BYTES,
  MAX_SUBDIRS_PAGE_ID_CHARS,
  MAX_SUBDIRS_PAGE_LIMIT,
  MAX_SUBDIRS_SCANNED_ENTRIES,
  SUBDIRS_TRUNCATED_HEADER,
  trajectoryPath,
} from '@agent-workspace/protocol';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readZip } from '../src/test-support/read-zip.js';
import { Figures } from './support/figures.js';
import {
  type Answer,
  type CallOptions,
  call,
  HOSTILE_NAMES,
  keepAliveCall,
} from './support/http.js';
import { attempt, describeOutcome } from './support/outcome.js';
import { AUTH, createScratch, KEY, type Scratch, ServerProcess } from './support/server-process.js';

const R = FILE_BROWSER_ROUTES;

/** Tries of each request while a link flips. */
const RACE_TRIES = { search: 600, create: 600, trajectory: 150 };

describe('file-browser routes under attack (--confine-to-working-dir)', () => {
  let scratch: Scratch;
  let server: ServerProcess;
  let work: string;
  let outside: string;
  let stateDir: string;
  let agent: Agent;
  const marker = `OUTSIDE-${randomBytes(8).toString('hex')}`;
  const llmKey = `sk-${randomBytes(12).toString('hex')}`;
  const hostile = new Figures('file browser: outside paths and hostile input');
  const huge = new Figures('file browser: huge directory');
  const race = new Figures('file browser: symlink swaps');

  beforeAll(async () => {
    scratch = await createScratch('file-browser');
    work = scratch.workingDir;
    outside = path.join(scratch.base, 'outside');
    stateDir = path.join(scratch.base, 'state');
    // The marker is only ever seen by listing or reading outside: never in a path a client sends.
    mkdirSync(path.join(outside, marker), { recursive: true });
    mkdirSync(path.join(outside, 'sub', marker), { recursive: true });
    writeFileSync(path.join(outside, `${marker}.json`), JSON.stringify({ marker }));
    mkdirSync(path.join(work, 'inside', 'child'), { recursive: true });
    symlinkSync(outside, path.join(work, 'escape'));
    symlinkSync(path.join(work, 'inside'), path.join(work, 'flip'));
    server = await ServerProcess.start({
      workingDir: work,
      runtimeDir: scratch.runtimeDir,
      flags: ['--confine-to-working-dir', '--state-dir', stateDir],
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
  const search = (query: Record<string, string>) =>
    call(`${server.url}${R.searchSubdirs}?${new URLSearchParams(query)}`, options());
  const create = (target: string) =>
    call(`${server.url}${R.createDirectory}?${new URLSearchParams({ path: target })}`, {
      ...options(),
      method: 'POST',
    });

  it('refuses every path outside and every malformed parameter with a 4xx naming it', async () => {
    const outsideListing = readdirSync(outside).sort();
    const longName = 'n'.repeat(300);
    /** [request, expected status, text the detail must hold] */
    const cases: [() => Promise<Answer>, number, string][] = [];
    for (const target of [
      '/',
      '/etc',
      outside,
      path.join(outside, 'sub'),
      `${work}/../outside`,
      `${work}/inside/../../outside`,
      path.join(work, 'escape'),
      path.join(work, 'escape', 'sub'),
    ]) {
      cases.push([() => search({ path: target }), 403, 'outside the working directory']);
      cases.push([() => create(path.join(target, 'made')), 403, 'outside the working directory']);
    }
    cases.push(
      [() => search({ path: 'relative' }), 400, 'Path must be absolute'],
      [() => create('relative/dir'), 400, 'Path must be absolute'],
      [() => search({ path: `${work}/a\0b` }), 422, 'path'],
      [() => create(`${work}/a\0b`), 422, 'path'],
      [() => search({ path: `${work}/${'x'.repeat(MAX_PATH_BYTES)}` }), 422, 'path'],
      [() => create(`${work}/${'x'.repeat(MAX_PATH_BYTES)}`), 422, 'path'],
      [() => create(path.join(work, longName)), 400, 'too long'],
      [() => search({ path: path.join(work, longName) }), 400, 'too long'],
      [() => search({ path: work, limit: '0' }), 422, 'limit'],
      [() => search({ path: work, limit: String(MAX_SUBDIRS_PAGE_LIMIT + 1) }), 422, 'limit'],
      [() => search({ path: work, limit: '1e9' }), 422, 'limit'],
      [() => search({ path: work, include_hidden: 'maybe' }), 422, 'include_hidden'],
      [
        () => search({ path: work, page_id: 'p'.repeat(MAX_SUBDIRS_PAGE_ID_CHARS + 1) }),
        422,
        'page_id',
      ],
      [
        () => call(`${server.url}${trajectoryPath('../../etc')}`, options()),
        422,
        'conversation_id',
      ],
      [
        () => call(`${server.url}${trajectoryPath('not-a-uuid')}`, options()),
        422,
        'conversation_id',
      ],
    );
    const problems: string[] = [];
    for (const [send, status, detail] of cases) {
      hostile.tried++;
      const answer = await send();
      const ok =
        answer.status === status && answer.text.includes(detail) && !answer.text.includes(marker);
      if (ok) hostile.rejected++;
      else {
        hostile.escapes++;
        problems.push(`${answer.status} ${answer.text.slice(0, 200)} (wanted ${status} ${detail})`);
      }
    }
    expect(problems).toEqual([]);
    expect(readdirSync(outside).sort(), 'what appeared outside').toEqual(outsideListing);
    // Home outside the confinement: the working directory instead, nothing of outside listed.
    const home = await call(`${server.url}${R.home}?include_hidden=true`, options());
    expect(home.status).toBe(200);
    expect(home.json).toMatchObject({ home: work, locations: [{ label: work, path: work }] });
    expect(home.text).not.toContain(marker);
  });

  it('creates and lists hostile names verbatim', async () => {
    const base = path.join(work, 'hostile');
    for (const name of HOSTILE_NAMES) {
      hostile.tried++;
      const answer = await create(path.join(base, name));
      expect(answer.status, `${JSON.stringify(name)}: ${answer.text}`).toBe(200);
      expect(statSync(path.join(base, name)).isDirectory()).toBe(true);
    }
    const listed = await search({ path: base, include_hidden: 'true' });
    expect(listed.status).toBe(200);
    const items = (listed.json as { items: { name: string; path: string }[] }).items;
    expect(items.map((item) => item.name).sort()).toEqual([...HOSTILE_NAMES].sort());
    for (const item of items) expect(item.path).toBe(path.join(base, item.name));
  });

  it(`stops a huge directory at ${MAX_SUBDIRS_SCANNED_ENTRIES} entries and says so`, async () => {
    const big = path.join(work, 'big');
    mkdirSync(big);
    const count = MAX_SUBDIRS_SCANNED_ENTRIES + 2000;
    for (let index = 0; index < count; index++) {
      if (index % 500 === 0) mkdirSync(path.join(big, `dir-${index}`));
      else writeFileSync(path.join(big, `file-${index}`), '');
    }
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => search({ path: big, limit: String(MAX_SUBDIRS_PAGE_LIMIT) })),
    );
    for (const answer of answers) {
      huge.tried++;
      expect(answer.status).toBe(200);
      expect(answer.headers[SUBDIRS_TRUNCATED_HEADER.toLowerCase()]).toBe('true');
      const page = answer.json as { items: unknown[] };
      expect(page.items.length).toBeGreaterThan(0);
      expect(page.items.length).toBeLessThanOrEqual(MAX_SUBDIRS_PAGE_LIMIT);
      huge.rejected++;
    }
    huge.note = `${count} entries, ${MAX_SUBDIRS_SCANNED_ENTRIES} read per request`;
    expect(server.exit).toBeUndefined();
  });

  it('never lists, creates or zips anything outside while links flip', async () => {
    // A conversation whose directory holds links leading out, one of them flipping.
    const created = await call(`${server.url}/api/conversations`, {
      ...options({ headers: { 'content-type': 'application/json' } }),
      method: 'POST',
      body: JSON.stringify({
        workspace: { kind: 'LocalWorkspace', working_dir: work, session_api_key: KEY },
        agent: {
          kind: 'Agent',
          llm: { kind: 'ScriptedLLM', script: [], api_key: llmKey },
          tools: [],
        },
      }),
    });
    expect(created.status, created.text).toBe(201);
    const id = (created.json as { id: string }).id;
    const conversationDir = path.join(stateDir, 'conversations', id);
    symlinkSync(path.join(outside, `${marker}.json`), path.join(conversationDir, 'leak.json'));
    symlinkSync(outside, path.join(conversationDir, 'leakdir'));
    mkdirSync(path.join(conversationDir, 'inner'));
    writeFileSync(path.join(conversationDir, 'inner', 'note.json'), '{"inner":true}');
    symlinkSync(path.join(conversationDir, 'inner'), path.join(conversationDir, 'flip'));

    const flippers = [
      await startSymlinkFlipper(path.join(work, 'flip'), [path.join(work, 'inside'), outside]),
      await startSymlinkFlipper(path.join(conversationDir, 'flip'), [
        path.join(conversationDir, 'inner'),
        outside,
      ]),
    ];
    const unexpected: string[] = [];
    const tally = { inside: 0, refused: 0, escapes: 0 };
    const judge = (
      outcome: Awaited<ReturnType<typeof attempt>>,
      inside: (a: Answer) => boolean,
    ) => {
      race.tried++;
      if (outcome.kind !== 'answer') {
        unexpected.push(describeOutcome(outcome));
        return;
      }
      const { answer } = outcome;
      if (answer.text.includes(marker)) tally.escapes++;
      else if (answer.status === 403 || answer.status === 404) tally.refused++;
      else if (answer.status === 200 && inside(answer)) tally.inside++;
      else unexpected.push(`${answer.status} ${answer.text.slice(0, 200)}`);
    };
    let flips = 0;
    try {
      await Promise.all([
        (async () => {
          for (let index = 0; index < RACE_TRIES.search; index++) {
            const outcome = await attempt(
              `${server.url}${R.searchSubdirs}?${new URLSearchParams({ path: path.join(work, 'flip') })}`,
              options(),
            );
            judge(outcome, (answer) => answer.text.includes('"child"'));
          }
        })(),
        (async () => {
          for (let index = 0; index < RACE_TRIES.create; index++) {
            const target = path.join(work, 'flip', `made-${index}`);
            const outcome = await attempt(
              `${server.url}${R.createDirectory}?${new URLSearchParams({ path: target })}`,
              { ...options(), method: 'POST' },
            );
            judge(outcome, () => true);
          }
        })(),
        (async () => {
          for (let index = 0; index < RACE_TRIES.trajectory; index++) {
            race.tried++;
            const response = await fetch(`${server.url}${trajectoryPath(id)}`, { headers: AUTH });
            const bytes = Buffer.from(await response.arrayBuffer());
            if (response.status !== 200) {
              unexpected.push(`trajectory ${response.status}`);
              continue;
            }
            const zip = await readZip(bytes);
            const text = Buffer.concat([
              ...zip.values(),
              ...[...zip.keys()].map((k) => Buffer.from(k)),
            ]).toString('utf8');
            if ([marker, KEY, llmKey].some((secret) => text.includes(secret))) tally.escapes++;
            else tally.inside++;
          }
        })(),
      ]);
    } finally {
      for (const flipper of flippers) flips += await flipper.stop();
    }
    race.rejected += tally.refused;
    race.escapes += tally.escapes;
    race.note = `${flips} flips; ${tally.inside} inside / ${tally.refused} refused / ${tally.escapes} escapes`;
    expect(flips, 'the links hardly flipped').toBeGreaterThan(500);
    expect(tally.refused, 'no try was refused').toBeGreaterThan(0);
    expect(tally.inside, 'no try got through inside').toBeGreaterThan(0);
    expect(tally.escapes).toBe(0);
    expect([...new Set(unexpected)]).toEqual([]);
    expect(readdirSync(outside).filter((name) => name.startsWith('made-'))).toEqual([]);
    expect(server.exit).toBeUndefined();
  });
});
