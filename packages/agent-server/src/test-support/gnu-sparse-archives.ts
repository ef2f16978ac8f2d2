import { execFileSync } from 'node:child_process';
import { mkdir, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The formats in which GNU tar `--sparse` stores a sparse file. */
const SPARSE_FORMATS = [
  ['--format=gnu'],
  ['--format=posix', '--sparse-version=0.0'],
  ['--format=posix', '--sparse-version=0.1'],
  ['--format=posix', '--sparse-version=1.0'],
];

/**
 * Tar archives of one real sparse file, `holes.bin` (a few bytes, then a hole to `size`), made
 * by GNU tar `--sparse` in each format it writes, in `dir` (created).
 */
export async function gnuSparseArchives(
  dir: string,
  size: number,
): Promise<{ format: string; archive: Buffer }[]> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, 'holes.bin');
  await writeFile(file, 'start');
  await truncate(file, size);
  return SPARSE_FORMATS.map((format) => ({
    format: format.join(' '),
    archive: execFileSync('tar', ['--sparse', ...format, '-C', dir, '-cf', '-', 'holes.bin']),
  }));
}
