import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reserveDownloadPath } from './reserve-download-path.js';

describe('reserveDownloadPath', () => {
  let root: string;
  let dir: string;

  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'download-target-'));
    dir = path.join(root, 'downloads');
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('creates the directory and an empty file under the suggested name', async () => {
    const target = await reserveDownloadPath(dir, 'report.pdf');
    expect(target).toBe(path.join(dir, 'report.pdf'));
    expect(await readdir(dir)).toEqual(['report.pdf']);
  });

  it('never reuses a name: adds (1), (2), ... before the extension', async () => {
    await mkdir(dir);
    await writeFile(path.join(dir, 'report.pdf'), 'mine');
    const names = await Promise.all([1, 2, 3].map(() => reserveDownloadPath(dir, 'report.pdf')));
    expect(names.map((name) => path.basename(name)).sort()).toEqual([
      'report (1).pdf',
      'report (2).pdf',
      'report (3).pdf',
    ]);
    expect(await readFile(path.join(dir, 'report.pdf'), 'utf8')).toBe('mine');
  });

  it.each([
    ['../../etc/passwd', 'passwd'],
    ['..\\..\\boot.ini', 'boot.ini'],
    ['..', 'download'],
    ['.bashrc', 'bashrc'],
    ['', 'download'],
    ['a<b>c:"d"|e?f*.txt', 'a_b_c__d__e_f_.txt'],
    ['line\nbreak\u0000.txt', 'line_break_.txt'],
  ])('keeps %j inside the directory as %j', async (suggested, expected) => {
    const target = await reserveDownloadPath(dir, suggested);
    expect(path.dirname(target)).toBe(dir);
    expect(path.basename(target)).toBe(expected);
  });

  it('shortens a long name to 200 bytes, keeping its extension', async () => {
    const target = await reserveDownloadPath(dir, `${'é'.repeat(300)}.tar`);
    const name = path.basename(target);
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(200);
    expect(name.endsWith('é.tar')).toBe(true);
  });
});
