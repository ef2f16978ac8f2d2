import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BubblewrapSandbox } from '../command-sandbox/bubblewrap-sandbox.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { commandSandboxSkipReason } from '../testing/command-sandbox-skip-reason.js';
import { streamGitDelta } from './stream-git-delta.js';

const skipReason = commandSandboxSkipReason('streamGitDelta in the command sandbox');

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@t.dev', '-c', 'user.name=t', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

/** Starts a sandbox whose scratch root lands in `hostTmp` (as the host's temporary directory). */
async function startSandbox(workingDir: string, hostTmp: string): Promise<BubblewrapSandbox> {
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = hostTmp;
  try {
    return await BubblewrapSandbox.start({ workingDir, network: false });
  } finally {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
  }
}

describe.skipIf(skipReason !== undefined)('streamGitDelta in the command sandbox', () => {
  let root: string;
  let work: string;
  let repo: string;
  /** The host's temporary directory while the sandbox started: it holds its scratch root only. */
  let hostTmp: string;
  let sandbox: BubblewrapSandbox;
  const scratchRoot = () => path.join(hostTmp, readdirSync(hostTmp)[0] as string);

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'stream-git-delta-sandbox-'));
    work = path.join(root, 'work');
    repo = path.join(work, 'repo');
    hostTmp = path.join(root, 'host-tmp');
    await mkdir(repo, { recursive: true });
    await mkdir(hostTmp);
    git(repo, 'init', '-q');
    await writeFile(path.join(repo, 'a.txt'), 'one\n');
    await writeFile(path.join(repo, 'gone.txt'), 'to be deleted\n');
    await writeFile(path.join(repo, 'image.bin'), Buffer.from([0, 1, 2, 255, 0, 7]));
    await writeFile(path.join(repo, '.gitignore'), 'ignored.log\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'init');
    sandbox = await startSandbox(work, hostTmp);
  });
  afterAll(async () => {
    await sandbox?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('makes a patch that applies to a clean checkout, and leaves no scratch behind', async () => {
    await writeFile(path.join(repo, 'a.txt'), 'two\n');
    await unlink(path.join(repo, 'gone.txt'));
    await writeFile(path.join(repo, 'new.txt'), 'untracked\n');
    await writeFile(path.join(repo, 'image.bin'), Buffer.from([9, 0, 255, 1]));
    await writeFile(path.join(repo, 'ignored.log'), 'ignored\n');
    await mkdir(path.join(repo, 'build'));
    await writeFile(path.join(repo, 'build', 'out.txt'), 'excluded\n');
    const status = git(repo, 'status', '--porcelain');
    const objects = git(repo, 'count-objects', '-v');

    const delta = await streamGitDelta({
      cwd: repo,
      sandbox,
      confineTo: work,
      excludes: ['build/'],
    });
    expect(readdirSync(scratchRoot()), 'the scratch exists while git runs').toHaveLength(1);
    const patch = await buffer(delta.patch);
    expect(delta.baseCommit).toBe(git(repo, 'rev-parse', 'HEAD').trim());
    expect(patch.toString('utf8')).toContain('GIT binary patch');

    const clean = path.join(root, 'clean');
    git(root, 'clone', '-q', repo, clean);
    await writeFile(path.join(root, 'delta.patch'), patch);
    git(clean, 'apply', '--binary', path.join(root, 'delta.patch'));
    expect(await readFile(path.join(clean, 'a.txt'), 'utf8')).toBe('two\n');
    expect(await readFile(path.join(clean, 'new.txt'), 'utf8')).toBe('untracked\n');
    expect([...(await readFile(path.join(clean, 'image.bin')))]).toEqual([9, 0, 255, 1]);
    expect(readdirSync(clean).sort()).toEqual([
      '.git',
      '.gitignore',
      'a.txt',
      'image.bin',
      'new.txt',
    ]);

    expect(git(repo, 'status', '--porcelain'), 'the index is untouched').toBe(status);
    expect(git(repo, 'count-objects', '-v'), 'no object was written').toBe(objects);
    await vi.waitFor(() => expect(readdirSync(scratchRoot())).toEqual([]));
  });

  it('removes the scratch when the request aborts, and refuses a dashed base_ref', async () => {
    const controller = new AbortController();
    const delta = await streamGitDelta({ cwd: repo, sandbox, signal: controller.signal });
    controller.abort();
    await buffer(delta.patch).catch(() => undefined);
    await vi.waitFor(() => expect(readdirSync(scratchRoot())).toEqual([]));

    const error = await streamGitDelta({ cwd: repo, sandbox, baseRef: '--output=/tmp/x' }).catch(
      (e: unknown) => e,
    );
    expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
    expect(readdirSync(scratchRoot())).toEqual([]);
  });

  it('takes the scratch root away with the sandbox', async () => {
    const otherTmp = path.join(root, 'other-tmp');
    await mkdir(otherTmp);
    const box = await startSandbox(work, otherTmp);
    await box.createScratch();
    expect(readdirSync(otherTmp)).toHaveLength(1);
    await box.close();
    expect(readdirSync(otherTmp)).toEqual([]);
    const error = await streamGitDelta({ cwd: repo, sandbox: box }).catch((e: unknown) => e);
    expect(WorkspaceError.isInstance(error, 'SANDBOX_EXITED')).toBe(true);
  });
});
