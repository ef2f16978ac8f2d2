/**
 * BubblewrapSandbox across processes: it dies with the process that started it, and it works
 * when started by an unprivileged user (through a user namespace).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { chown, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandSandboxSkipReason } from '../testing/command-sandbox-skip-reason.js';
import {
  isAlive,
  pidNamespaceOf,
  pidsInNamespace,
  survivorsOf,
} from './test-support/pid-namespace.js';

const skipReason = commandSandboxSkipReason('BubblewrapSandbox lifetime');
const packageDir = fileURLToPath(new URL('../..', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`./test-support/${name}`, import.meta.url));
/** The unprivileged user of the non-root test (`nobody` on Debian). */
const NOBODY = 65_534;

let root: string;
const cleanup: string[] = [];
const children: ChildProcess[] = [];
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'bubblewrap-lifetime-'));
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of [root, ...cleanup]) await rm(dir, { recursive: true, force: true });
});

/** Runs a fixture with node + tsx; resolves with its first line. */
async function startFixture(
  name: string,
  args: string[],
): Promise<{ child: ChildProcess; line: string; stderr: () => string }> {
  const node = [process.execPath, '--import', 'tsx', fixture(name), ...args];
  const child = spawn(node[0] as string, node.slice(1), {
    cwd: packageDir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  for await (const line of createInterface({ input: child.stdout! })) {
    return { child, line, stderr: () => stderr };
  }
  await once(child, 'close');
  throw new Error(`${name} printed nothing: ${stderr}`);
}

describe.skipIf(skipReason !== undefined)('BubblewrapSandbox lifetime', () => {
  it('leaves no process behind when its owner is killed with SIGKILL', async () => {
    const workingDir = await mkdtemp(path.join(root, 'owner-'));
    const { child, line } = await startFixture('sandbox-owner.ts', [workingDir]);
    const { pid } = JSON.parse(line) as { pid: number };
    const namespace = pidNamespaceOf(pid);
    const holder = Number(
      /^PPid:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1],
    );
    // bwrap's init, the holder's sleep and `sleep 1000`.
    expect(pidsInNamespace(namespace).length).toBeGreaterThanOrEqual(3);
    expect(isAlive(holder)).toBe(true);
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
    expect(await survivorsOf(namespace)).toEqual([]);
    expect(isAlive(holder)).toBe(false);
  });

  const asRoot = process.geteuid?.() === 0;
  if (!asRoot)
    console.warn('\n!! SKIPPING the non-root sandbox test: it needs root to switch users\n');
  it.skipIf(!asRoot)(
    'works for an unprivileged user: uid 0 in a user namespace mapped to that user',
    async () => {
      // Directly in the temporary directory: the user cannot enter the test's private root.
      const workingDir = await mkdtemp(path.join(tmpdir(), 'bubblewrap-nobody-'));
      cleanup.push(workingDir);
      await chown(workingDir, NOBODY, NOBODY);
      const { line, stderr } = await startFixture('sandbox-as-user.ts', [
        workingDir,
        String(NOBODY),
      ]);
      const report = JSON.parse(line) as Record<string, unknown>;
      expect(report, stderr()).toEqual({
        uid: NOBODY,
        userNamespace: true,
        exitCode: 0,
        stdout: '0\n0\nCapEff:\t0000000000000000\nNoNewPrivs:\t1\n',
        stderr: '',
        scratch: { stdout: 'kept\nCapEff:\t0000000000000000\n', stderr: '' },
      });
      const created = await stat(path.join(workingDir, 'created-inside'));
      expect([created.uid, created.gid]).toEqual([NOBODY, NOBODY]);
    },
  );
});
