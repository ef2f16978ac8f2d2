import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalCommand } from '../local/run-local-command.js';
import { killTokenScript } from './kill-token-script.js';
import { wrapPolledCommand } from './wrap-polled-command.js';

let dir: string;
const children: ChildProcess[] = [];
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'kill-token-script-'));
});
afterAll(async () => {
  for (const child of children) if (child.pid) killGroup(child.pid);
  await rm(dir, { recursive: true, force: true });
});

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** True while `pid` exists and is not a zombie. */
async function isAlive(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/**
 * Starts a wrapped command the way a server does (`sh -c`, new process group) that leaves a
 * tree behind: a background sleep, a subshell, a nested bash and a shell loop. Returns its pids.
 */
async function startTree(label: string, token: string): Promise<number[]> {
  const pidFile = path.join(dir, `${label}.pids`);
  const command = [
    `echo $$ >> ${pidFile}`,
    `sleep 60 & echo $! >> ${pidFile}`,
    `(sleep 60; true) & echo $! >> ${pidFile}`,
    `bash -c 'sleep 60 & echo $! >> ${pidFile}; wait' &`,
    `while [ "$(wc -l < ${pidFile})" -lt 4 ]; do sleep 0.02; done`,
    'while :; do sleep 0.05; done',
  ].join('\n');
  const child = spawn('/bin/sh', ['-c', wrapPolledCommand({ command, env: {}, token })], {
    detached: true,
    stdio: 'ignore',
  });
  children.push(child);
  for (;;) {
    const pids = (await readFile(pidFile, 'utf8').catch(() => ''))
      .split('\n')
      .filter(Boolean)
      .map(Number);
    if (pids.length >= 4) return pids;
    await sleep(20);
  }
}

describe('killTokenScript', () => {
  it('kills the whole tree carrying the token and nothing else', async () => {
    const victim = await startTree('victim', 'aaaa1111');
    const bystander = await startTree('bystander', 'bbbb2222');
    for (const pid of [...victim, ...bystander]) expect(await isAlive(pid)).toBe(true);

    const result = await runLocalCommand({
      command: killTokenScript('aaaa1111'),
      cwd: dir,
      env: {},
      timeoutMs: 10_000,
      maxOutputBytes: 65_536,
      shell: '/bin/sh',
    });
    expect(result.exitCode).toBe(0);

    for (const pid of victim) expect(await isAlive(pid), `pid ${pid} survived`).toBe(false);
    for (const pid of bystander) expect(await isAlive(pid), `pid ${pid} was hit`).toBe(true);
  }, 20_000);
});
