import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DirectoryHandle, extractArchive, packDirectory } from '@agent-workspace/core/internal';
import { bestOf, type Comparison, roundsComparison } from './bench-harness.js';
import { digestTree, FILES, writeTree } from './directory-transfer-bench.js';

const run = promisify(execFile);
const ROUNDS = 7;

/** Wall time of `operation`, in ms. */
async function timed(operation: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await operation();
  return performance.now() - start;
}

/**
 * The tar work of a directory transfer alone, in this process (warm, no HTTP, no second
 * process): `packDirectory` read to its end against `tar -c | cat`, and `extractArchive` of a
 * GNU tar archive against `tar -x`, on tmpfs where there is one (the software's cost, not the
 * disk's), best of {@link ROUNDS} interleaved rounds after a warm-up. The transfer rows add a
 * fresh client process, HTTP and the other side's work to this.
 */
export async function benchArchiveCodec(): Promise<Comparison[]> {
  const base = await mkdtemp(path.join('/dev/shm', 'bench-codec-')).catch(() =>
    mkdtemp(path.join(tmpdir(), 'bench-codec-')),
  );
  try {
    const source = path.join(base, 'source');
    await writeTree(source);
    const expected = await digestTree(source);
    const archive = path.join(base, 'tree.tar');
    await run('tar', ['-c', '-f', archive, '-C', source, '.']);
    const pack = await bestOf({
      rounds: ROUNDS,
      warmup: 1,
      baseline: () =>
        timed(() => run('bash', ['-c', 'tar -c -C "$1" . | cat > /dev/null', 'bash', source])),
      candidate: () =>
        timed(async () => {
          const directory = DirectoryHandle.open(source);
          let bytes = 0;
          try {
            for await (const piece of packDirectory({ directory })) bytes += piece.length;
          } finally {
            directory.close();
          }
          if (bytes < FILES * 512) throw new Error(`packDirectory gave only ${bytes} bytes`);
        }),
    });
    const sameTree = async (target: string) => {
      if ((await digestTree(target)) !== expected) throw new Error(`${target} differs`);
    };
    const extract = await bestOf({
      rounds: ROUNDS,
      warmup: 1,
      baseline: (round) =>
        timedInto(
          path.join(base, `tar-${round}`),
          (target) => run('tar', ['-x', '-f', archive, '-C', target]),
          sameTree,
        ),
      candidate: (round) =>
        timedInto(
          path.join(base, `ours-${round}`),
          async (target) => {
            const directory = DirectoryHandle.open(target);
            try {
              await extractArchive({
                source: createReadStream(archive),
                directory,
                maxEntries: Number.MAX_SAFE_INTEGER,
                maxBytes: Number.MAX_SAFE_INTEGER,
              });
            } finally {
              directory.close();
            }
          },
          sameTree,
        ),
    });
    const where = base.startsWith('/dev/shm') ? 'tmpfs' : 'disk';
    const notes = (syscalls: string) =>
      `${expected} on ${where}, in this process (warm); ${syscalls}`;
    return [
      roundsComparison({
        scenario: `${FILES} files packed in this process: packDirectory vs tar -c | cat`,
        baseline: { name: 'tar -c | cat > /dev/null', samples: pack.baseline },
        candidate: { name: 'packDirectory, read to its end', samples: pack.candidate },
        unit: 'ms',
        higherIsBetter: false,
        notes: notes('both open, fstat, read and close each file'),
      }),
      roundsComparison({
        scenario: `${FILES} files extracted in this process: extractArchive vs tar -x`,
        baseline: { name: 'tar -x -f <archive>', samples: extract.baseline },
        candidate: { name: 'extractArchive of the same archive', samples: extract.candidate },
        unit: 'ms',
        higherIsBetter: false,
        notes: notes(
          'tar makes six syscalls a file (with fchown, fchmod, utimensat), we make three',
        ),
      }),
    ];
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

/**
 * Times `extract` into the new directory `target`; then, untimed, `check`s what it wrote and
 * removes it.
 */
async function timedInto(
  target: string,
  extract: (target: string) => Promise<unknown>,
  check: (target: string) => Promise<void>,
): Promise<number> {
  await mkdir(target);
  try {
    const ms = await timed(() => extract(target));
    await check(target);
    return ms;
  } finally {
    await rm(target, { recursive: true, force: true });
  }
}
