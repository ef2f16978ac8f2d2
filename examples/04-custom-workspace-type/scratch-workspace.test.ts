/**
 * What the scratch type adds to the contract: registration, config validation, a fresh
 * directory per name, path confinement, setup, abort and who removes what.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createWorkspace } from '@agent-workspace/core';
import { expectRejection } from '@agent-workspace/core/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { registerScratchWorkspaceType } from './register-scratch-workspace-type.js';
import { ScratchWorkspace } from './scratch-workspace.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'scratch-test-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('registration', () => {
  it('is needed before createWorkspace, and happens once per kind', async () => {
    const unknown = await expectRejection(
      createWorkspace({ kind: 'scratch', name: 'early', root }),
      'UNKNOWN_WORKSPACE_KIND',
    );
    expect(unknown.message).toContain('"scratch"');
    const unregister = registerScratchWorkspaceType();
    try {
      expect(() => registerScratchWorkspaceType()).toThrowError(/already registered/);
      await using workspace = await createWorkspace({ kind: 'scratch', name: 'late', root });
      expect(workspace).toBeInstanceOf(ScratchWorkspace);
      expect(workspace.workingDir).toBe(path.join(root, 'late'));
    } finally {
      unregister();
    }
  });
});

describe('config validation', () => {
  let unregister: () => void;
  beforeAll(() => {
    unregister = registerScratchWorkspaceType();
  });
  afterAll(() => unregister());

  const cases: Array<[string, Record<string, unknown>]> = [
    ['name', { name: '../../etc' }],
    ['name', { name: '..' }],
    ['name', { name: '.' }],
    ['name', { name: 'a/b' }],
    ['name', { name: '.hidden' }],
    ['name', { name: '-rf' }],
    ['name', { name: '' }],
    ['name', { name: 'x'.repeat(65) }],
    ['name', { name: 42 }],
    ['name', {}],
    ['root', { name: 'ok', root: 'relative/dir' }],
    ['root', { name: 'ok', root: '/tmp/a\0b' }],
    ['setup', { name: 'ok', setup: '   ' }],
    ['setup', { name: 'ok', setup: 'x'.repeat(4097) }],
    ['setupTimeoutMs', { name: 'ok', setupTimeoutMs: 0 }],
    ['setupTimeoutMs', { name: 'ok', setupTimeoutMs: 1.5 }],
    ['setupTimeoutMs', { name: 'ok', setupTimeoutMs: 600_001 }],
    ['keep', { name: 'ok', keep: 'yes' }],
  ];

  it.each(cases)(
    'createWorkspace refuses a bad %s (%j) with INVALID_CONFIG naming it',
    async (field, config) => {
      const error = await expectRejection(
        createWorkspace({ kind: 'scratch', root, ...config }),
        'INVALID_CONFIG',
      );
      expect(error.message).toContain(field);
      expect(error.details.fields).toEqual([field]);
      expect(await readdir(root)).toEqual([]);
    },
  );

  it.each([...cases, ['bogus', { name: 'ok', bogus: true }]])(
    'ScratchWorkspace.create refuses a bad %s (%j) the same way',
    async (field, options) => {
      const error = await expectRejection(
        ScratchWorkspace.create({ root, ...options } as never),
        'INVALID_CONFIG',
      );
      expect(error.details.fields).toEqual([field]);
      expect(await readdir(root)).toEqual([]);
    },
  );

  it('refuses an unknown field instead of ignoring it', async () => {
    const error = await expectRejection(
      createWorkspace({ kind: 'scratch', name: 'ok', root, keepAlive: true }),
      'INVALID_CONFIG',
    );
    expect(error.message).toContain('keepAlive');
  });
});

describe('ScratchWorkspace', () => {
  it('creates a fresh private directory, runs setup in it and deletes it on close', async () => {
    const workspace = await ScratchWorkspace.create({ name: 'job', root, setup: 'git init -q' });
    const dir = path.join(root, 'job');
    expect(workspace.workingDir).toBe(dir);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(existsSync(path.join(dir, '.git'))).toBe(true);
    await workspace.executeCommand('echo hi > new.txt');
    expect(await workspace.gitChanges('.')).toEqual([{ status: 'ADDED', path: 'new.txt' }]);
    await workspace.close();
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(root)).toBe(true); // the root is the caller's
  });

  it('creates a missing root and keeps the directory with keep: true', async () => {
    const nested = path.join(root, 'a', 'b');
    {
      await using workspace = await ScratchWorkspace.create({
        name: 'kept',
        root: nested,
        keep: true,
      });
      await workspace.executeCommand('echo stays > result.txt');
    }
    expect(await readdir(path.join(nested, 'kept'))).toEqual(['result.txt']);
  });

  it('refuses a name in use with INVALID_ARGUMENT and leaves that directory alone', async () => {
    await mkdir(path.join(root, 'taken'));
    await writeFile(path.join(root, 'taken', 'mine.txt'), 'x');
    const error = await expectRejection(
      ScratchWorkspace.create({ name: 'taken', root }),
      'INVALID_ARGUMENT',
    );
    expect(error.details.field).toBe('name');
    expect(await readdir(path.join(root, 'taken'))).toEqual(['mine.txt']);
  });

  it('reports a root that cannot be a directory as PROVISIONING_ERROR', async () => {
    const file = path.join(root, 'file');
    await writeFile(file, 'x');
    const error = await expectRejection(
      ScratchWorkspace.create({ name: 'job', root: file }),
      'PROVISIONING_ERROR',
    );
    expect(error.details.errno).toBeDefined();
  });

  it('removes the directory when setup fails or times out, keep or not', async () => {
    const failed = await expectRejection(
      ScratchWorkspace.create({ name: 'bad', root, keep: true, setup: 'echo broken >&2; exit 4' }),
      'PROVISIONING_ERROR',
    );
    expect(failed.message).toContain('exited with 4: broken');
    const slow = await expectRejection(
      ScratchWorkspace.create({ name: 'slow', root, setup: 'sleep 30', setupTimeoutMs: 200 }),
      'PROVISIONING_ERROR',
    );
    expect(slow.message).toContain('timed out after 200 ms');
    expect(await readdir(root)).toEqual([]);
  });

  it('rejects with ABORTED and leaves nothing when the signal fires, before or during setup', async () => {
    await expectRejection(
      ScratchWorkspace.create({ name: 'early', root, signal: AbortSignal.abort() }),
      'ABORTED',
    );
    expect(await readdir(root)).toEqual([]);

    const controller = new AbortController();
    const creating = ScratchWorkspace.create({
      name: 'late',
      root,
      setup: 'touch started; sleep 30',
      signal: controller.signal,
    });
    await vi.waitFor(() => expect(existsSync(path.join(root, 'late', 'started'))).toBe(true));
    controller.abort();
    await expectRejection(creating, 'ABORTED');
    expect(await readdir(root)).toEqual([]);
  });

  it('refuses workspace-side paths outside its directory with FORBIDDEN naming the field', async () => {
    await using workspace = await ScratchWorkspace.create({ name: 'box', root });
    const source = path.join(root, 'source.txt');
    await writeFile(source, 'data');
    const refusals: Array<[string, () => Promise<unknown>]> = [
      ['cwd', () => workspace.executeCommand('pwd', { cwd: '..' })],
      ['destinationPath', () => workspace.fileUpload(source, '../escaped.txt')],
      ['sourcePath', () => workspace.fileDownload('/etc/hostname', `${source}.back`)],
      ['path', () => workspace.gitChanges('/')],
      ['path', () => workspace.gitDiff('sub/../../box-sibling/file.txt')],
    ];
    for (const [field, call] of refusals) {
      const error = await expectRejection(call(), 'FORBIDDEN');
      expect(error.details.field).toBe(field);
    }
    expect(existsSync(path.join(root, 'escaped.txt'))).toBe(false);
    // `..` that stays inside, and names merely starting with dots, are fine.
    expect((await workspace.fileUpload(source, 'a/../..notes.txt')).success).toBe(true);
    expect((await workspace.executeCommand('cat ..notes.txt')).stdout).toBe('data');
  });

  it('cannot be paused: a directory has nothing to suspend', async () => {
    await using workspace = await ScratchWorkspace.create({ name: 'awake', root });
    const error = await expectRejection(workspace.pause(), 'NOT_SUPPORTED');
    expect(error.message).toContain('scratch workspaces cannot be paused');
  });
});
