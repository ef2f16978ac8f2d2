import { existsSync, watch } from 'node:fs';
import {
  chmod,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { acquireWorkspace, LocalWorkspace, workspaceForkOf } from '@agent-workspace/core';
import { expectRejection } from '@agent-workspace/core/testing';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, makeTestArea, type TestArea } from '../test-support/test-project.js';
import { GitWorkspace } from './git-workspace.js';
import type { GitWorkspaceOptions } from './git-workspace-options.js';

let area: TestArea;
beforeEach(async () => {
  area = await makeTestArea('fork');
});
afterEach(async () => {
  await area.cleanup();
});

/** Everything git says of a tree's state: the index, the files against it, untracked ones. */
async function gitState(tree: string) {
  const status = await execa('git', ['status', '--porcelain=v1', '--untracked-files=all'], {
    cwd: tree,
  });
  return {
    head: await git(tree, 'log', '-1', '--format=%H %s'),
    status: status.stdout,
    index: await git(tree, 'ls-files', '--stage'),
    stash: await git(tree, 'stash', 'list', '--format=%gd %H %gs'),
  };
}

/** The regular files below `directory`. */
async function countFiles(directory: string): Promise<number> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).length;
}

/** Resolves once `name` exists in `directory` (a watch, checked once more after it starts). */
async function whenExists(directory: string, name: string): Promise<void> {
  await mkdir(directory, { recursive: true });
  await new Promise<void>((resolve) => {
    const watcher = watch(directory, () => {
      if (existsSync(path.join(directory, name))) done();
    });
    const done = () => {
      watcher.close();
      resolve();
    };
    if (existsSync(path.join(directory, name))) done();
  });
}

describe.each(['worktree', 'clone'] as const)('GitWorkspace.fork (%s)', (kind) => {
  const create = (sessionId: string, project: Partial<GitWorkspaceOptions['project']> = {}) =>
    GitWorkspace.create({
      kind,
      project: { path: area.project, defaultBranch: 'main', ...project },
      projectId: 'app',
      sessionId,
      branch: `agent/${sessionId}`,
      root: area.root,
      forceDestroy: true,
    });

  /** A source tree with a local commit and every kind of uncommitted change. */
  async function busySource(sessionId = 'src') {
    const source = await create(sessionId);
    const tree = source.workingDir;
    await mkdir(path.join(tree, 'src'));
    await writeFile(path.join(tree, 'src', 'gone.txt'), 'to be untracked\n');
    await writeFile(path.join(tree, 'src', 'deleted.txt'), 'to be deleted\n');
    await writeFile(path.join(tree, 'both.txt'), 'v1\n');
    await git(tree, 'add', '-A');
    await git(tree, 'commit', '-q', '-m', 'local work');
    for (const round of ['one', 'two']) {
      await writeFile(path.join(tree, 'both.txt'), `stashed ${round}\n`);
      await git(tree, 'stash', 'push', '-q', '-m', `stash ${round}`);
    }
    // An untracked nested repository is carried whole.
    await mkdir(path.join(tree, 'nested'));
    await git(path.join(tree, 'nested'), 'init', '-q', '-b', 'main');
    await writeFile(path.join(tree, 'nested', 'n.txt'), 'nested\n');
    await git(path.join(tree, 'nested'), 'add', 'n.txt');
    await git(path.join(tree, 'nested'), 'commit', '-q', '-m', 'nested commit');
    await writeFile(path.join(tree, 'both.txt'), 'v2 staged\n');
    await writeFile(path.join(tree, 'staged.txt'), 'new and staged\n');
    await writeFile(path.join(tree, 'binary.bin'), Buffer.from([0, 1, 2, 255, 0, 10]));
    await git(tree, 'add', 'both.txt', 'staged.txt', 'binary.bin');
    await writeFile(path.join(tree, 'both.txt'), 'v3 unstaged\n');
    await writeFile(path.join(tree, 'README.md'), '# changed, not staged\n');
    await git(tree, 'rm', '-q', '--cached', '--', 'src/gone.txt');
    await rm(path.join(tree, 'src', 'deleted.txt'));
    await mkdir(path.join(tree, 'notes', 'deep'), { recursive: true });
    await writeFile(path.join(tree, 'notes', 'deep', 'todo.txt'), 'untracked\n');
    await writeFile(path.join(tree, 'tool.sh'), '#!/bin/sh\necho tool\n');
    await chmod(path.join(tree, 'tool.sh'), 0o755);
    await mkdir(path.join(tree, 'node_modules'));
    await writeFile(path.join(tree, 'node_modules', 'ignored.js'), 'ignored\n');
    return source;
  }

  it('carries the HEAD commit, the index, unstaged changes and untracked files, not ignored ones', async () => {
    await using source = await busySource();
    const before = await gitState(source.workingDir);
    expect(before.status.split('\n')).toEqual(
      expect.arrayContaining([
        ' M README.md',
        'MM both.txt',
        'A  staged.txt',
        'D  src/gone.txt',
        ' D src/deleted.txt',
        '?? src/gone.txt',
        '?? notes/deep/todo.txt',
      ]),
    );

    await using fork = await source.fork({ sessionId: 'copy', branch: 'agent/copy' });
    expect(fork).toBeInstanceOf(GitWorkspace);
    expect(fork.kind).toBe(kind);
    expect(fork.workingDir).toBe(path.join(area.root, 'app', 'copy'));
    expect(fork.info).toMatchObject({ branch: 'agent/copy', sessionId: 'copy', projectId: 'app' });
    expect(await git(fork.workingDir, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('agent/copy');
    expect(await gitState(fork.workingDir)).toEqual(before);
    // .gitignore, README.md, binary.bin, both.txt, staged.txt, src/gone.txt, todo.txt, tool.sh,
    // and the nested repository's files.
    expect(fork.forkedFrom).toEqual({
      directory: source.workingDir,
      method: expect.stringMatching(/^(reflink|copy)$/),
      files: 8 + (await countFiles(path.join(source.workingDir, 'nested'))),
      bytes: expect.any(Number),
    });
    expect(source.forkedFrom).toBeUndefined();
    expect(await git(fork.workingDir, 'diff', '--cached', '--binary')).toBe(
      await git(source.workingDir, 'diff', '--cached', '--binary'),
    );
    for (const file of ['README.md', 'both.txt', 'staged.txt', 'binary.bin', 'src/gone.txt']) {
      expect(await readFile(path.join(fork.workingDir, file))).toEqual(
        await readFile(path.join(source.workingDir, file)),
      );
    }
    expect(await readFile(path.join(fork.workingDir, 'notes/deep/todo.txt'), 'utf8')).toBe(
      'untracked\n',
    );
    expect((await stat(path.join(fork.workingDir, 'tool.sh'))).mode & 0o777).toBe(0o755);
    expect(existsSync(path.join(fork.workingDir, 'src/deleted.txt'))).toBe(false);
    expect(before.stash.split('\n')).toHaveLength(2);
    expect(await git(path.join(fork.workingDir, 'nested'), 'log', '--format=%s')).toBe(
      'nested commit',
    );
    expect(existsSync(path.join(fork.workingDir, 'node_modules'))).toBe(false);
    const command = await fork.executeCommand('./tool.sh');
    expect(command.stdout).toBe('tool\n');

    // Independent both ways.
    await writeFile(path.join(fork.workingDir, 'fork-only.txt'), 'fork\n');
    await writeFile(path.join(fork.workingDir, 'both.txt'), 'fork edit\n');
    await writeFile(path.join(source.workingDir, 'source-only.txt'), 'source\n');
    expect(existsSync(path.join(source.workingDir, 'fork-only.txt'))).toBe(false);
    expect(existsSync(path.join(fork.workingDir, 'source-only.txt'))).toBe(false);
    expect(await readFile(path.join(source.workingDir, 'both.txt'), 'utf8')).toBe('v3 unstaged\n');
  });

  it('defaults a session and branch, copies ignored files on request, and stands alone', async () => {
    const source = await busySource();
    const fork = await source.fork({ includeIgnored: true });
    const suffix = /^src-fork-([0-9a-f]{8})$/.exec(fork.info.sessionId)?.[1];
    expect(suffix).toBeDefined();
    expect(fork.info.branch).toBe(`agent/src-fork-${suffix}`);
    expect(await readFile(path.join(fork.workingDir, 'node_modules', 'ignored.js'), 'utf8')).toBe(
      'ignored\n',
    );
    expect(workspaceForkOf(fork)).toBe(fork);
    expect(fork.capabilities).toMatchObject({ fork: true, directoryTransfer: true });
    if (kind === 'clone') {
      // The clone's remotes are a create's: the project (no origin here) is its origin.
      expect(await git(fork.workingDir, 'remote', 'get-url', 'origin')).toBe(area.project);
    }
    const state = await gitState(source.workingDir);
    const staged = await git(source.workingDir, 'rev-parse', ':binary.bin');
    // Closing the source leaves the fork whole: its commit, index objects and files.
    await source.close();
    expect(existsSync(source.workingDir)).toBe(false);
    expect(await gitState(fork.workingDir)).toEqual(state);
    expect(await git(fork.workingDir, 'cat-file', '-t', staged)).toBe('blob');
    await git(fork.workingDir, 'fsck', '--no-progress');
    // And the other way round: the fork's close leaves a second fork's source intact.
    const third = await fork.fork({ sessionId: 'third', branch: 'agent/third' });
    await fork.close();
    expect(existsSync(fork.workingDir)).toBe(false);
    expect(await gitState(third.workingDir)).toEqual(state);
    await third.close();
    expect(await readdir(path.join(area.root, 'app', '.owners'))).toEqual([]);
  });

  it('refuses a branch or session in use and bad options, leaving nothing behind', async () => {
    await using source = await create('src');
    const taken = await expectRejection(source.fork({ branch: 'main' }), 'ALREADY_EXISTS');
    expect(taken.details).toMatchObject({ field: 'branch' });
    const session = await expectRejection(source.fork({ sessionId: 'src' }), 'ALREADY_EXISTS');
    expect(session.details).toMatchObject({ field: 'sessionId' });
    const badBranch = await expectRejection(source.fork({ branch: 'a..b' }), 'INVALID_ARGUMENT');
    expect(badBranch.details).toMatchObject({ field: 'branch' });
    const badSession = await expectRejection(
      source.fork({ sessionId: '../x' }),
      'INVALID_ARGUMENT',
    );
    expect(badSession.details).toMatchObject({ field: 'sessionId' });
    expect((await readdir(path.join(area.root, 'app'))).sort()).toEqual(['.owners', 'src']);
    expect(await readdir(path.join(area.root, 'app', '.owners'))).toEqual(['src.json']);
    expect(await git(area.project, 'branch', '--list', 'agent/src-fork-*')).toBe('');
  });

  it('leaves no tree, owner record or branch when aborted during the copy or post-create', async () => {
    // Only a fork carries the marker file, so only its post-create step waits.
    const started = path.join(area.base, 'post-create-started');
    await using source = await create('src', {
      postCreate: [`if [ -e slow ]; then touch '${started}'; sleep 60; fi`],
    });
    await writeFile(path.join(source.workingDir, 'slow'), 'marker\n');
    const owners = path.join(area.root, 'app', '.owners');
    for (const [when, sessionId] of [
      [() => whenExists(owners, 'early.json'), 'early'],
      [() => whenExists(area.base, 'post-create-started'), 'late'],
    ] as const) {
      const controller = new AbortController();
      void when().then(() => controller.abort());
      await expectRejection(
        source.fork({ sessionId, branch: `agent/${sessionId}`, signal: controller.signal }),
        'ABORTED',
      );
      expect(existsSync(path.join(area.root, 'app', sessionId))).toBe(false);
      expect(await readdir(owners)).toEqual(['src.json']);
      expect(await git(area.project, 'branch', '--list', `agent/${sessionId}`)).toBe('');
      expect(await git(area.project, 'worktree', 'list', '--porcelain')).not.toContain(sessionId);
    }
    expect(existsSync(started)).toBe(true);
  });

  it('closing the source stops its forks in flight, then closes', async () => {
    const started = path.join(area.base, 'post-create-started');
    const source = await create('src', {
      postCreate: [`if [ -e slow ]; then touch '${started}'; sleep 60; fi`],
    });
    await writeFile(path.join(source.workingDir, 'slow'), 'marker\n');
    const refused = expectRejection(
      source.fork({ sessionId: 'f1', branch: 'agent/f1' }),
      'ABORTED',
    );
    await whenExists(area.base, 'post-create-started');
    await source.close();
    await refused;
    expect(existsSync(source.workingDir)).toBe(false);
    expect(existsSync(path.join(area.root, 'app', 'f1'))).toBe(false);
    expect(await readdir(path.join(area.root, 'app', '.owners'))).toEqual([]);
    expect(await git(area.project, 'branch', '--list', 'agent/f1')).toBe('');
    await expectRejection(source.fork(), 'WORKSPACE_CLOSED');
  });

  it('carries links as links and never writes through one out of the tree', async () => {
    const outside = path.join(area.base, 'outside');
    await mkdir(outside);
    await writeFile(path.join(outside, 'file.txt'), 'outside\n');
    await using source = await create('src');
    const tree = source.workingDir;
    await symlink(outside, path.join(tree, 'out'));
    await mkdir(path.join(tree, 'sub'));
    await writeFile(path.join(tree, 'sub', 'file.txt'), 'inside\n');
    await git(tree, 'add', '-A');
    await git(tree, 'commit', '-q', '-m', 'links');
    // The tracked directory becomes a link out of the tree: git sees sub/file.txt deleted and
    // an untracked link `sub`; a copy that followed it would write outside/file.txt.
    await rm(path.join(tree, 'sub'), { recursive: true });
    await symlink(outside, path.join(tree, 'sub'));
    const state = await gitState(tree);
    expect(state.status).toContain(' D sub/file.txt');
    const outsideFile = await stat(path.join(outside, 'file.txt'), { bigint: true });

    await using fork = await source.fork({ sessionId: 'copy', branch: 'agent/copy' });
    for (const link of ['out', 'sub']) {
      expect((await lstat(path.join(fork.workingDir, link))).isSymbolicLink()).toBe(true);
      expect(await readlink(path.join(fork.workingDir, link))).toBe(outside);
    }
    expect(await gitState(fork.workingDir)).toEqual(state);
    expect(await readdir(outside)).toEqual(['file.txt']);
    expect(await readFile(path.join(outside, 'file.txt'), 'utf8')).toBe('outside\n');
    // Not even rewritten with its own bytes (what a copy through the link `sub` would do).
    const after = await stat(path.join(outside, 'file.txt'), { bigint: true });
    expect([after.ino, after.mtimeNs, after.ctimeNs]).toEqual([
      outsideFile.ino,
      outsideFile.mtimeNs,
      outsideFile.ctimeNs,
    ]);
  });

  it('refuses while someone else holds an exclusive_write lease on the source, not its own', async () => {
    await using source = await create('src');
    const other = new LocalWorkspace({ workingDir: source.workingDir });
    {
      await using _held = await acquireWorkspace(other, {
        holderId: 'someone-else',
        mode: 'exclusive_write',
      });
      const refused = await expectRejection(source.fork({ sessionId: 'f1' }), 'WORKSPACE_OCCUPIED');
      expect(refused.message).toContain('someone-else');
      expect(existsSync(path.join(area.root, 'app', 'f1'))).toBe(false);
    }
    await using _mine = await acquireWorkspace(source, { holderId: 'me', mode: 'exclusive_write' });
    await using fork = await source.fork({ sessionId: 'f2' });
    expect(existsSync(fork.workingDir)).toBe(true);
    await other.close();
  });
});
