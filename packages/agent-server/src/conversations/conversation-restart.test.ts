import { readFileSync } from 'node:fs';
import { appendFile, mkdtemp, realpath, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentServer } from '../create-agent-server.js';
import { type ServerProcess, spawnServerProcess } from '../test-support/spawn-server-process.js';
import { CONVERSATIONS_DIR } from './conversation-directories.js';
import {
  allEventPages,
  api,
  observationLine,
  scriptedAgent,
  startRequest,
  waitForStatus,
} from './test-support/conversation-api.js';

const R = AGENT_SERVER_ROUTES;
const packageDir = fileURLToPath(new URL('../..', import.meta.url));

/** Observations of this size written straight to the events file: a history of about 48 MB. */
const OBSERVATION_BYTES = 240_000;
const OBSERVATIONS = 200;

/** The server's heap bound: the history is larger than its share of it. */
const MAX_OLD_SPACE_MIB = 128;

/** What loading and paging all of that may add to the server's resident memory. */
const MAX_GROWTH_BYTES = 96 * 1024 ** 2;

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0) * 1024;
}

describe('a server restarted on a state dir with a long conversation', () => {
  let workingDir: string;
  let stateDir: string;
  let id: string;
  let eventsFile: string;

  beforeAll(async () => {
    workingDir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'conversation-restart-')));
    stateDir = await mkdtemp(path.join(os.tmpdir(), 'conversation-restart-state-'));
    const first = await createAgentServer({ port: 0, logLevel: 'silent', workingDir, stateDir });
    const created = await api(
      first.url,
      'POST',
      R.conversations,
      startRequest(workingDir, scriptedAgent('echo hello')),
    );
    id = created.json.id;
    await waitForStatus(first.url, id, 'finished');
    await first.close();
    eventsFile = path.join(stateDir, CONVERSATIONS_DIR, id, 'conversation', 'events.jsonl');
    for (let index = 0; index < OBSERVATIONS; index += 20) {
      const lines = Array.from({ length: 20 }, (_, offset) =>
        observationLine(OBSERVATION_BYTES, index + offset),
      );
      await appendFile(eventsFile, `${lines.join('\n')}\n`);
    }
  }, 60_000);

  afterAll(async () => {
    await rm(workingDir, { recursive: true, force: true });
    await rm(stateDir, { recursive: true, force: true });
  });

  it('lists it from metadata, then serves all its events in pages with flat memory', async () => {
    const { size } = await stat(eventsFile);
    expect(size).toBeGreaterThan(OBSERVATIONS * OBSERVATION_BYTES);
    const server: ServerProcess = await spawnServerProcess(
      [
        `--max-old-space-size=${MAX_OLD_SPACE_MIB}`,
        '--import',
        'tsx',
        'src/cli.ts',
        ...['--port', '0', '--working-dir', workingDir, '--state-dir', stateDir],
      ],
      { cwd: packageDir },
    );
    const pid = server.child.pid as number;
    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssOf(pid));
    }, 20);
    try {
      const listed = await api(server.url, 'GET', `${R.searchConversations}?limit=100`);
      expect(listed.json.items).toEqual([
        expect.objectContaining({ id, execution_status: 'finished' }),
      ]);
      const baseline = rssOf(pid);
      peak = baseline;

      const { pages, events } = await allEventPages(server.url, id);
      const written = readFileSync(eventsFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { id: string }).id);
      expect(events.map((event) => event.id)).toEqual(written);
      expect(written.length).toBe(OBSERVATIONS + 9); // and the run's own nine (two are stats updates)
      expect(pages.length).toBeGreaterThan(10);
      peak = Math.max(peak, rssOf(pid));
      expect(peak - baseline).toBeLessThan(MAX_GROWTH_BYTES);
    } finally {
      clearInterval(sampler);
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});
