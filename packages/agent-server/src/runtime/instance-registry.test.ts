import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { isProcessAlive } from '@agent-workspace/core/internal';
import { rejectionOf } from '@agent-workspace/core/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { findMarkedProcesses } from './find-marked-processes.js';
import { INSTANCE_VARIABLE, InstanceRegistry } from './instance-registry.js';

describe('InstanceRegistry', () => {
  let base: string;
  let runtimeDir: string;
  beforeEach(async () => {
    // Real, as the journals name them: the sweep follows no link, /tmp being one included.
    base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'instance-registry-')));
    runtimeDir = path.join(base, 'runtime');
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  it('creates a private runtime dir and refuses one open to others or a link', async () => {
    const { registry } = await InstanceRegistry.open(runtimeDir);
    expect(readdirSync(runtimeDir)).toEqual([`${registry.id}.jsonl`]);
    expect(registry.environment).toEqual({ [INSTANCE_VARIABLE]: registry.id });
    await registry.close();
    expect(readdirSync(runtimeDir)).toEqual([]);
    const open = path.join(base, 'open');
    await mkdir(open);
    await chmod(open, 0o755);
    const error = await rejectionOf(InstanceRegistry.open(open));
    expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as Error).message).toContain('must not be open to other users');
    await symlink(runtimeDir, path.join(base, 'link'));
    expect(
      (await rejectionOf(InstanceRegistry.open(path.join(base, 'link')))) as Error,
    ).toMatchObject({
      message: expect.stringContaining('not a link'),
    });
  });

  it("sweeps a dead instance's processes and temporary files, and leaves live instances alone", async () => {
    // A server that "died": its journal names a pid that is gone.
    const dead = 'a'.repeat(32);
    const leftover = path.join(base, '.upload.bin.0123456789ab.part');
    const unrelated = path.join(base, 'not-a-part-file');
    writeFileSync(leftover, 'half');
    writeFileSync(unrelated, 'keep');
    await mkdir(runtimeDir, { recursive: true, mode: 0o700 });
    writeFileSync(
      path.join(runtimeDir, `${dead}.jsonl`),
      `${JSON.stringify({ pid: 2 ** 22 + 7, start: '1', boot: '' })}\n${JSON.stringify({ created: leftover })}\n${JSON.stringify({ created: unrelated })}\n{"torn`,
    );
    // And its private directory (the plugins' files).
    await mkdir(path.join(runtimeDir, `${dead}.d`, 'plugins', 'python'), { recursive: true });
    // Its command left a background process carrying its marker.
    const orphan = spawn('sleep', ['1000'], {
      env: { ...process.env, [INSTANCE_VARIABLE]: dead },
      detached: true,
      stdio: 'ignore',
    });
    const orphanExited = new Promise((resolve) => orphan.once('exit', resolve));
    const { registry: live, sweep } = await InstanceRegistry.open(runtimeDir);
    const { registry, sweep: again } = await InstanceRegistry.open(runtimeDir);
    try {
      expect(sweep).toEqual({
        instances: 1,
        processes: 1,
        temporaryFiles: 1,
        privateDirectories: 1,
      });
      // The second start finds a live instance, not a dead one.
      expect(again).toEqual({
        instances: 0,
        processes: 0,
        temporaryFiles: 0,
        privateDirectories: 0,
      });
      await orphanExited;
      expect(isProcessAlive(orphan.pid as number)).toBe(false);
      expect(existsSync(leftover)).toBe(false);
      expect(existsSync(unrelated)).toBe(true);
      expect(readdirSync(runtimeDir).sort()).toEqual(
        [`${live.id}.jsonl`, `${registry.id}.jsonl`].sort(),
      );
    } finally {
      await registry.close();
      await live.close();
    }
  });

  /** Writes the journal of a dead instance `id` naming `created` as its temporary entries. */
  async function deadJournal(id: string, created: string[]): Promise<void> {
    await mkdir(runtimeDir, { recursive: true, mode: 0o700 });
    const lines = [
      { pid: 2 ** 22 + 11, start: '1', boot: '' },
      ...created.map((c) => ({ created: c })),
    ];
    writeFileSync(
      path.join(runtimeDir, `${id}.jsonl`),
      lines.map((line) => `${JSON.stringify(line)}\n`).join(''),
    );
  }

  /** A staged extraction directory in `parent`, holding files, a subdirectory and a link. */
  async function stagedDirectory(parent: string, keep: string): Promise<string> {
    const staged = path.join(parent, '.archive.0123456789ab.part');
    await mkdir(path.join(staged, 'sub', 'deeper'), { recursive: true });
    writeFileSync(path.join(staged, 'a.txt'), 'a');
    writeFileSync(path.join(staged, 'sub', 'deeper', 'b.txt'), 'b');
    // A link to a directory outside: removed as a link, what it points at kept.
    await symlink(keep, path.join(staged, 'sub', 'out'));
    // A half-written large file of the extraction, with its own journal entry.
    writeFileSync(path.join(staged, 'sub', '.big.bin.abcdef012345.part'), 'half');
    return staged;
  }

  it('sweeps the staged directories of an extraction cut by a crash, following no link', async () => {
    const keep = path.join(base, 'keep');
    await mkdir(keep);
    writeFileSync(path.join(keep, 'precious'), 'p');
    const work = path.join(base, 'work');
    await mkdir(work);
    const staged = await stagedDirectory(work, keep);
    await deadJournal('c'.repeat(32), [
      staged,
      path.join(staged, 'sub', '.big.bin.abcdef012345.part'),
    ]);
    const { registry, sweep } = await InstanceRegistry.open(runtimeDir);
    await registry.close();
    expect(sweep.temporaryFiles).toBe(1);
    expect(readdirSync(work)).toEqual([]);
    expect(readdirSync(keep)).toEqual(['precious']);
  });

  it('leaves a staged directory alone when a link was swapped in for its parent', async () => {
    const keep = path.join(base, 'keep');
    await mkdir(keep);
    // The journal names <base>/work/.archive…part; <base>/work became a link to <base>/elsewhere.
    const elsewhere = path.join(base, 'elsewhere');
    await mkdir(elsewhere);
    const staged = await stagedDirectory(elsewhere, keep);
    const journaled = path.join(base, 'work', path.basename(staged));
    await symlink(elsewhere, path.join(base, 'work'));
    // And one whose own name is now a link to a directory of the same shape.
    const second = path.join(base, 'second');
    await mkdir(second);
    const linkedTarget = await stagedDirectory(keep, keep);
    const linked = path.join(second, path.basename(linkedTarget));
    await symlink(linkedTarget, linked);
    await deadJournal('d'.repeat(32), [journaled, linked]);
    const { registry, sweep } = await InstanceRegistry.open(runtimeDir);
    await registry.close();
    // The link in the parent was not followed: the directory behind it is intact.
    expect(readdirSync(staged).sort()).toEqual(['a.txt', 'sub']);
    // The link standing for the staged directory was removed as a link, its target kept.
    expect(existsSync(linked)).toBe(false);
    expect(readdirSync(linkedTarget).sort()).toEqual(['a.txt', 'sub']);
    expect(sweep.temporaryFiles).toBe(1);
  });

  it('starts when other servers sweep the same dead instance at the same time', async () => {
    const dead = 'b'.repeat(32);
    await mkdir(runtimeDir, { recursive: true, mode: 0o700 });
    writeFileSync(
      path.join(runtimeDir, `${dead}.jsonl`),
      `${JSON.stringify({ pid: 2 ** 22 + 9, start: '1', boot: '' })}\n`,
    );
    await mkdir(path.join(runtimeDir, `${dead}.d`));
    // A wide staged directory, so that the sweepers meet inside it.
    const staged = path.join(base, '.archive.fedcba987654.part');
    for (let i = 0; i < 20; i++) {
      await mkdir(path.join(staged, `d${i}`), { recursive: true });
      for (let j = 0; j < 20; j++) writeFileSync(path.join(staged, `d${i}`, `f${j}`), 'x');
    }
    writeFileSync(
      path.join(runtimeDir, `${dead}.jsonl`),
      `${JSON.stringify({ pid: 2 ** 22 + 9, start: '1', boot: '' })}\n${JSON.stringify({ created: staged })}\n`,
    );
    const opened = await Promise.all(
      Array.from({ length: 4 }, () => InstanceRegistry.open(runtimeDir)),
    );
    try {
      expect(opened.some(({ sweep }) => sweep.instances === 1)).toBe(true);
      expect(existsSync(staged)).toBe(false);
      expect(readdirSync(runtimeDir).sort()).toEqual(
        opened.map(({ registry }) => `${registry.id}.jsonl`).sort(),
      );
    } finally {
      await Promise.all(opened.map(({ registry }) => registry.close()));
    }
  });

  it('gives each instance a private directory and removes it on close', async () => {
    const { registry } = await InstanceRegistry.open(runtimeDir);
    const dir = registry.privateDirectory();
    expect(dir).toBe(path.join(runtimeDir, `${registry.id}.d`));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    writeFileSync(path.join(dir, 'kernel.json'), '{}');
    await registry.close();
    expect(existsSync(dir)).toBe(false);
  });

  it('ends the processes its own commands left when it closes', async () => {
    const { registry } = await InstanceRegistry.open(runtimeDir);
    const child = spawn('bash', ['-c', "trap '' TERM; sleep 1000"], {
      env: { ...process.env, ...registry.environment },
      detached: true,
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // Under load the new process may not show its environment yet.
    await vi.waitFor(
      () => expect(findMarkedProcesses(INSTANCE_VARIABLE, registry.id)).toContain(child.pid),
      { timeout: 10_000, interval: 10 },
    );
    expect(await registry.close()).toBeGreaterThanOrEqual(1);
    await exited;
    expect(isProcessAlive(child.pid as number)).toBe(false);
  });
});
