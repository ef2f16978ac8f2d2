import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, utimes } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  EGRESS_SOCKET_DIR_PREFIX,
  EGRESS_SOCKET_NAME,
  reapEgressSocketDirs,
} from './reap-egress-socket-dirs.js';

const HOUR_MS = 3_600_000;
let base: string | undefined;
afterEach(async () => {
  if (base) await rm(base, { recursive: true, force: true });
});

/** An empty socket directory in `base`. */
async function socketDir(name: string): Promise<string> {
  const dir = path.join(base as string, `${EGRESS_SOCKET_DIR_PREFIX}${name}`);
  await mkdir(dir, { mode: 0o700 });
  return dir;
}

async function age(dir: string, ageMs: number): Promise<void> {
  const then = new Date(Date.now() - ageMs);
  await utimes(dir, then, then);
}

/** Leaves a socket nobody listens on in `dir`, as a proxy killed with SIGKILL does. */
function killedListener(dir: string): Promise<void> {
  const script = `require('node:net').createServer().listen(${JSON.stringify(path.join(dir, EGRESS_SOCKET_NAME))}, () => process.kill(process.pid, 'SIGKILL'))`;
  return new Promise((resolve) => execFile(process.execPath, ['-e', script], () => resolve()));
}

describe('reapEgressSocketDirs', () => {
  it('removes old directories nobody listens in; keeps live, young and foreign ones', async () => {
    base = await mkdtemp(path.join(tmpdir(), 'reap-egress-'));
    const stale = await socketDir('stale');
    await killedListener(stale);
    expect(statSync(path.join(stale, EGRESS_SOCKET_NAME)).isSocket()).toBe(true);
    const live = await socketDir('live');
    const server = createServer();
    await new Promise<void>((resolve) =>
      server.listen(path.join(live, EGRESS_SOCKET_NAME), resolve),
    );
    const young = await socketDir('young');
    await killedListener(young);
    const other = path.join(base, 'other-dir');
    await mkdir(other);
    await Promise.all([stale, live, other].map((dir) => age(dir, HOUR_MS)));
    try {
      await reapEgressSocketDirs(base);
      expect(existsSync(stale)).toBe(false);
      expect([live, young, other].map((dir) => existsSync(dir))).toEqual([true, true, true]);
    } finally {
      server.close();
    }
  });
});
