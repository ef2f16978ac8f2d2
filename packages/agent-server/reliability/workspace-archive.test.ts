import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { startSymlinkFlipper } from '@agent-workspace/core/testing';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Figures } from './support/figures.js';
import { call } from './support/http.js';
import { sandboxSkipReason } from './support/processes.js';
import { AUTH, createScratch, type Scratch, ServerProcess } from './support/server-process.js';

/** Marker of every file outside the working directory: no answer may hold it. */
const MARKER = 'OUTSIDE-SECRET-7f3a';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@t.dev', '-c', 'user.name=t', ...args], {
    cwd,
    encoding: 'utf8',
  });
}

const sandboxSkip = sandboxSkipReason('reliability: git-delta under --sandbox');

/** An answer: its status, its body as text (a tarball unpacked), parsed JSON when it is. */
interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

describe('hostile workspace archive requests (GET /api/file/archive)', () => {
  let scratch: Scratch;
  let server: ServerProcess;
  let work: string;
  let outside: string;
  const figures = new Figures('workspace archive');

  beforeAll(async () => {
    scratch = await createScratch('workspace-archive');
    work = scratch.workingDir;
    outside = path.join(scratch.base, 'outside');
    mkdirSync(path.join(outside, 'repo'), { recursive: true });
    writeFileSync(path.join(outside, 'secret.txt'), MARKER);
    writeFileSync(path.join(outside, 'repo', 'secret.txt'), MARKER);
    git(path.join(outside, 'repo'), 'init', '-q');
    mkdirSync(path.join(work, 'repo'));
    writeFileSync(path.join(work, 'repo', 'a.txt'), 'a\n');
    git(path.join(work, 'repo'), 'init', '-q');
    git(path.join(work, 'repo'), 'add', '-A');
    git(path.join(work, 'repo'), 'commit', '-q', '-m', 'init');
    mkdirSync(path.join(work, 'inside'));
    writeFileSync(path.join(work, 'inside', 'secret.txt'), 'inside');
    server = await ServerProcess.start({
      workingDir: work,
      runtimeDir: scratch.runtimeDir,
      flags: ['--confine-to-working-dir'],
    });
  });
  afterAll(async () => {
    figures.observeRss(server?.peakRss ?? 0);
    figures.save();
    await server?.stop();
    await scratch?.remove();
  });

  /** One archive request; the body is kept as bytes (a tarball is not text). */
  async function archive(params: [string, string][], timeoutMs = 15_000): Promise<Reply> {
    const query = new URLSearchParams(params);
    const response = await fetch(`${server.url}${AGENT_SERVER_ROUTES.fileArchive}?${query}`, {
      headers: AUTH,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = Buffer.from(await response.arrayBuffer());
    const type = response.headers.get('content-type') ?? '';
    const text = type.startsWith('application/gzip')
      ? gunzipSync(body).toString('latin1')
      : body.toString('utf8');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  /** Checks one hostile request: the status expected, nothing from outside, still serving. */
  async function expectHeld(answer: Reply, statuses: number[], what: string): Promise<void> {
    figures.tried++;
    const leaked = answer.text.includes(MARKER);
    if (leaked) figures.escapes++;
    const health = await call(`${server.url}/health`);
    expect(leaked, `${what} leaked a file from outside`).toBe(false);
    expect(statuses, `${what}: ${answer.status} ${answer.text.slice(0, 200)}`).toContain(
      answer.status,
    );
    expect(health.status).toBe(200);
    if (answer.status >= 400) figures.rejected++;
  }

  it('refuses option-like base_ref values and writes nothing', async () => {
    const repo = path.join(work, 'repo');
    const target = path.join(scratch.base, 'written-by-git');
    for (const baseRef of ['-o', '--output=x', `--output=${target}`, '-', '--', '-p']) {
      const answer = await archive([
        ['path', repo],
        ['base_ref', baseRef],
      ]);
      await expectHeld(answer, [400], `base_ref ${baseRef}`);
      expect(JSON.stringify(answer.json)).toMatch(/base_ref/);
    }
    expect(existsSync(target)).toBe(false);
    expect(existsSync(path.join(repo, 'x'))).toBe(false);
    for (const baseRef of ['HEAD..--output=y', 'HEAD@{-1}', 'a\u0000b', 'refs/../../etc']) {
      const answer = await archive([
        ['path', repo],
        ['base_ref', baseRef],
      ]);
      await expectHeld(answer, [400, 422], `base_ref ${JSON.stringify(baseRef)}`);
    }
    expect(readdirSync(repo).sort()).toEqual(['.git', 'a.txt']);
  });

  it('answers hostile globs quickly and correctly, or refuses them naming exclude', async () => {
    const repo = path.join(work, 'repo');
    const globs = [
      '*'.repeat(256),
      `${'*a'.repeat(100)}b`,
      `${'**/'.repeat(80)}x`,
      '[',
      '[!',
      '[]]',
      '\\',
      '!*',
      '+(a|aa)+(a|aa)+(a|aa)+(a|aa)+(a|aa)+(a|aa)+(a|aa)*b',
      '{a,b,{c,d,{e,f}}}'.repeat(10),
      ':(top)a.txt',
      '../../outside',
      '/',
    ];
    for (const format of ['tar.gz', 'git-delta']) {
      for (const glob of globs) {
        const answer = await archive(
          [
            ['path', repo],
            ['format', format],
            ['exclude', glob],
          ],
          10_000,
        );
        await expectHeld(answer, [200], `${format} exclude ${glob.slice(0, 30)}`);
      }
    }
    const tooLong = await archive([
      ['path', repo],
      ['exclude', 'a'.repeat(257)],
    ]);
    await expectHeld(tooLong, [422], 'a 257-character glob');
    expect(JSON.stringify(tooLong.json)).toMatch(/exclude/);
    const many = Array.from({ length: 101 }, (_, i): [string, string] => ['exclude', `g${i}`]);
    const tooMany = await archive([['path', repo], ...many]);
    await expectHeld(tooMany, [422], '101 globs');
    expect(JSON.stringify(tooMany.json)).toMatch(/exclude/);
  });

  it('refuses paths outside the working directory, through links and git files too', async () => {
    symlinkSync(outside, path.join(work, 'out-link'));
    mkdirSync(path.join(work, 'fake'));
    writeFileSync(
      path.join(work, 'fake', '.git'),
      `gitdir: ${path.join(outside, 'repo', '.git')}\n`,
    );
    for (const format of ['tar.gz', 'git-delta']) {
      for (const target of [
        outside,
        path.join(work, '..', 'outside'),
        path.join(work, 'out-link'),
        path.join(outside, 'repo'),
      ]) {
        const answer = await archive([
          ['path', target],
          ['format', format],
        ]);
        await expectHeld(answer, [403], `${format} of ${target}`);
      }
    }
    const gitFile = await archive([['path', path.join(work, 'fake')]]);
    await expectHeld(gitFile, [403], 'git-delta of a .git file leading outside');
    const plainTar = await archive([
      ['path', path.join(work, 'fake')],
      ['format', 'tar.gz'],
      ['use_default_excludes', 'false'],
    ]);
    await expectHeld(plainTar, [200], 'tar.gz of a directory with a .git file leading outside');
    expect(plainTar.headers.get('x-archive-repo-root'), 'names the repository outside').toBeNull();
  });

  it('never reaches outside while a link in the path or the tree flips (400 tries)', async () => {
    const tree = path.join(work, 'tree');
    mkdirSync(tree);
    writeFileSync(path.join(tree, 'own.txt'), 'own');
    const flip = path.join(work, 'flip');
    symlinkSync(path.join(work, 'inside'), flip);
    const inTree = path.join(tree, 'swapped');
    symlinkSync(path.join(work, 'inside'), inTree);
    const flippers = [
      await startSymlinkFlipper(flip, [path.join(work, 'inside'), outside]),
      await startSymlinkFlipper(inTree, [path.join(work, 'inside'), outside]),
    ];
    const statuses = new Map<number, number>();
    try {
      for (let i = 0; i < 200; i++) {
        for (const target of [flip, tree]) {
          const answer = await archive([
            ['path', target],
            ['format', 'tar.gz'],
          ]);
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          await expectHeld(answer, [200, 403], `tar.gz of ${target} while flipping`);
        }
      }
    } finally {
      for (const flipper of flippers) await flipper.stop();
    }
    figures.note = `statuses ${JSON.stringify(Object.fromEntries(statuses))}`;
    expect(statuses.get(200), 'some archives were answered').toBeGreaterThan(0);
  });
});

describe.skipIf(sandboxSkip !== undefined)('git-delta of a --sandbox server', () => {
  let dirs: Scratch;
  let server: ServerProcess;
  let repo: string;
  /** The server's temporary directory: it holds the sandbox's scratch root alone. */
  let serverTmp: string;

  beforeAll(async () => {
    dirs = await createScratch('workspace-archive-sandbox');
    repo = path.join(dirs.workingDir, 'repo');
    serverTmp = path.join(dirs.base, 'server-tmp');
    mkdirSync(repo);
    mkdirSync(serverTmp);
    writeFileSync(path.join(repo, 'a.txt'), 'one\n');
    writeFileSync(path.join(repo, 'gone.txt'), 'to be deleted\n');
    writeFileSync(path.join(repo, 'data.bin'), Buffer.from([0, 1, 2, 255]));
    git(repo, 'init', '-q');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'init');
    server = await ServerProcess.start({
      workingDir: dirs.workingDir,
      runtimeDir: dirs.runtimeDir,
      flags: ['--sandbox', '--no-sandbox-network'],
      env: { TMPDIR: serverTmp },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await dirs?.remove();
  });

  function delta(params: [string, string][]): Promise<Response> {
    const query = new URLSearchParams([['path', repo], ['format', 'git-delta'], ...params]);
    return fetch(`${server.url}${AGENT_SERVER_ROUTES.fileArchive}?${query}`, {
      headers: AUTH,
      signal: AbortSignal.timeout(15_000),
    });
  }

  /** Every scratch left in the sandbox's scratch root. */
  function scratches(): string[] {
    const roots = readdirSync(serverTmp).filter((name) => name.startsWith('agent-workspace-'));
    expect(roots, 'the sandbox has one scratch root').toHaveLength(1);
    return readdirSync(path.join(serverTmp, roots[0] as string));
  }

  it('answers 200 with a patch (untracked file, deletion, binary) that applies to a clean clone', async () => {
    writeFileSync(path.join(repo, 'a.txt'), 'two\n');
    unlinkSync(path.join(repo, 'gone.txt'));
    writeFileSync(path.join(repo, 'new.txt'), 'untracked\n');
    writeFileSync(path.join(repo, 'data.bin'), Buffer.from([255, 0, 9]));
    const status = git(repo, 'status', '--porcelain');
    const response = await delta([]);
    const body = Buffer.from(await response.arrayBuffer());
    expect(response.status, body.toString('utf8').slice(0, 300)).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/x-patch/);
    expect(response.headers.get('x-archive-base-commit')).toBe(
      git(repo, 'rev-parse', 'HEAD').trim(),
    );
    expect(body.toString('utf8')).toContain('deleted file mode');

    const clean = path.join(dirs.base, 'clean');
    git(dirs.base, 'clone', '-q', repo, clean);
    writeFileSync(path.join(dirs.base, 'delta.patch'), body);
    git(clean, 'apply', '--binary', path.join(dirs.base, 'delta.patch'));
    expect(readFileSync(path.join(clean, 'a.txt'), 'utf8')).toBe('two\n');
    expect(readFileSync(path.join(clean, 'new.txt'), 'utf8')).toBe('untracked\n');
    expect([...readFileSync(path.join(clean, 'data.bin'))]).toEqual([255, 0, 9]);
    expect(existsSync(path.join(clean, 'gone.txt'))).toBe(false);

    expect(git(repo, 'status', '--porcelain'), 'the index is untouched').toBe(status);
    await vi.waitFor(() => expect(scratches()).toEqual([]));
  });

  it('still refuses an option-like base_ref with 400, writing nothing', async () => {
    const target = path.join(dirs.base, 'written-by-git');
    for (const baseRef of ['--output=/tmp/x', `--output=${target}`, '-p']) {
      const response = await delta([['base_ref', baseRef]]);
      expect(response.status).toBe(400);
      expect(await response.text()).toMatch(/base_ref/);
    }
    expect(existsSync(target)).toBe(false);
    expect(scratches()).toEqual([]);
  });
});
