import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { peakRssOf, startAgentServerProcess } from './agent-server-process.js';
import { type Comparison, roundsComparison } from './bench-harness.js';
import {
  API_KEY,
  type ClientTimings,
  nodeTarDownload,
  rawRound,
  remoteRound,
  serverRound,
  type Timings,
} from './directory-transfer-rounds.js';

/** Files in the tree: 10 directories of 1000, sizes spread over 0..8 KiB. */
export const FILES = 10_000;
const ROUNDS = 5;
const here = path.dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);

/** Writes the tree: `d<n>/` directories, a nested one, files of deterministic sizes. */
export async function writeTree(root: string): Promise<void> {
  for (let start = 0; start < FILES; start += 1000) {
    const dir = path.join(root, `d${start / 1000}`, start % 2000 === 0 ? 'nested' : '');
    await mkdir(dir, { recursive: true });
    await Promise.all(
      Array.from({ length: 1000 }, (_, index) => {
        const size = ((start + index) * 7919) % 8192;
        return writeFile(
          path.join(dir, `f${index}.txt`),
          Buffer.alloc(size, (start + index) % 251),
        );
      }),
    );
  }
}

/** File count and a hash of every file's relative path and content, in sorted order. */
export async function digestTree(root: string): Promise<string> {
  const hash = createHash('sha256');
  let files = 0;
  const walk = async (relative: string): Promise<void> => {
    const entries = await readdir(path.join(root, relative), { withFileTypes: true });
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const child = path.join(relative, entry.name);
      if (entry.isDirectory()) await walk(child);
      else {
        files += 1;
        hash.update(`${child}\0`).update(await readFile(path.join(root, child)));
      }
    }
  };
  await walk('');
  return `${files} files, sha256 ${hash.digest('hex').slice(0, 16)}`;
}

export async function startRawTarServer(): Promise<{
  url: string;
  pid: number;
  stop: () => Promise<void>;
}> {
  const child = spawn(process.execPath, [path.join(here, 'raw-tar-server.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout! }).once('line', resolve),
  );
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Where the tree is written: the disk (the goal's row) and, when there is one, tmpfs. */
const BASES = [
  { label: 'disk', dir: tmpdir() },
  { label: 'tmpfs', dir: '/dev/shm' },
] as const;

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);

/**
 * A 10 000-file tree uploaded and downloaded through the agent-server (`uploadDirectory` /
 * `downloadDirectory`, one tar stream each way, server and client in their own processes)
 * against `tar | curl -T -` into a node:http server piping into `tar -x` (and back), rounds
 * interleaved, best of each side. Both copies are checked (file count and content hash). Our
 * client then makes the same round trip again in its process, warm: a row of its own against
 * the same baseline, so a fresh process's first-use cost can be told from the steady one.
 *
 * Two more rows split the gap: the baseline's own pipelines against the agent-server (its share),
 * and, for downloads, a fresh Node process that hands the agent-server's archive to `tar -x`
 * (the least any Node client costs here, with none of our checks).
 *
 * On the disk (the goal's row) and on tmpfs, where it is only the software's cost: on a disk
 * both sides' rounds swing by seconds with write-back and, where it is mounted with `discard`,
 * the discards of freed blocks.
 */
export async function benchDirectoryTransfer(): Promise<Comparison[]> {
  const comparisons: Comparison[] = [];
  for (const base of BASES) {
    const root = await mkdtemp(path.join(base.dir, 'bench-directory-')).catch(() => undefined);
    if (root === undefined) continue;
    comparisons.push(...(await benchDirectoryTransferIn(root, base.label)));
  }
  return comparisons;
}

/** {@link benchDirectoryTransfer} in `root` (which it removes), on the file system `label`. */
async function benchDirectoryTransferIn(root: string, label: string): Promise<Comparison[]> {
  try {
    const source = path.join(root, 'source');
    await writeTree(source);
    const expected = await digestTree(source);
    const raw = await startRawTarServer();
    const rawRuns: Timings[] = [];
    const remoteRuns: ClientTimings[] = [];
    const serverRuns: Timings[] = [];
    const nodeTarRuns: number[] = [];
    let serverPeak = 0;
    let rawPeak = 0;
    try {
      await using server = await startAgentServerProcess([
        '--working-dir',
        root,
        '--session-api-key',
        API_KEY,
      ]);
      for (let round = 0; round < ROUNDS; round += 1) {
        const runRaw = async () => {
          const back = path.join(root, `raw-back-${round}`);
          rawRuns.push(await rawRound(raw.url, source, path.join(root, `raw-${round}`), back));
          if ((await digestTree(back)) !== expected) throw new Error('raw tar round trip differs');
        };
        const runRemote = async () => {
          const back = path.join(root, `remote-back-${round}`);
          remoteRuns.push(
            await remoteRound(server.url, source, path.join(root, `remote-${round}`), back),
          );
          for (const again of ['', '-again']) {
            if ((await digestTree(path.join(root, `remote-${round}${again}`))) !== expected)
              throw new Error('directory upload differs from the source');
            if ((await digestTree(`${back}${again}`)) !== expected)
              throw new Error('directory download differs');
          }
        };
        const runServer = async () => {
          const back = path.join(root, `server-back-${round}`);
          const remote = path.join(root, `server-${round}`);
          serverRuns.push(await serverRound(server.url, source, remote, back));
          if ((await digestTree(back)) !== expected) throw new Error('curl + tar round differs');
          const nodeTarBack = path.join(root, `node-tar-back-${round}`);
          await run('sync');
          nodeTarRuns.push(await nodeTarDownload(server.url, remote, nodeTarBack));
          // Also checks the upload above: this downloads what it sent.
          if ((await digestTree(nodeTarBack)) !== expected) throw new Error('node → tar differs');
        };
        // Rotate who goes first, and flush dirty pages before each, so the write-back of one
        // side's files does not land in another's timing.
        const steps = [runRaw, runRemote, runServer];
        for (const step of [...steps.slice(round % 3), ...steps.slice(0, round % 3)]) {
          await run('sync');
          await step();
        }
        // The copies stay until the end: on a disk, deletes cost the next round their discards.
      }
      serverPeak = await server.peakRssBytes();
      rawPeak = await peakRssOf(raw.pid);
    } finally {
      await raw.stop();
    }
    const notes = `${expected} under ${path.dirname(root)}; peak RSS: agent-server ${mib(serverPeak)} MiB, client ${mib(Math.max(...remoteRuns.map((r) => r.peakRssBytes)))} MiB; raw tar server ${mib(rawPeak)} MiB`;
    return (['upload', 'download'] as const).flatMap((direction) => {
      const key = direction === 'upload' ? 'uploadMs' : 'downloadMs';
      const warmKey = direction === 'upload' ? 'warmUploadMs' : 'warmDownloadMs';
      const baseline = {
        name: `tar + curl + node:http ${direction}`,
        samples: rawRuns.map((run) => run[key]),
      };
      const first = roundsComparison({
        scenario: `${FILES} files ${direction} on ${label}: directory archive vs tar | curl (wall time, lower is better)`,
        baseline,
        candidate: {
          name: `RemoteWorkspace ${direction}Directory`,
          samples: remoteRuns.map((run) => run[key]),
        },
        unit: 'ms',
        higherIsBetter: false,
        target:
          label === 'disk'
            ? 'ratio ≤ 1.5 (each file lands whole: a new directory is filled under a temporary name and renamed once, other files go through a temporary file + rename)'
            : 'none: the software alone, no disk',
        notes: `the client's first ${direction} in a fresh process; ${notes}`,
      });
      const warm = roundsComparison({
        scenario: `${FILES} files ${direction} on ${label}, the client's second ${direction} (warm) vs tar | curl`,
        baseline,
        candidate: {
          name: `RemoteWorkspace ${direction}Directory, again`,
          samples: remoteRuns.map((run) => run[warmKey]),
        },
        unit: 'ms',
        higherIsBetter: false,
        notes: `the same client process right after its first round trip: what the first pays for code that is not compiled yet shows as the difference`,
      });
      const floors = [
        roundsComparison({
          scenario: `${FILES} files ${direction} on ${label}, the agent-server's share: the same pipeline against it vs tar | curl`,
          baseline,
          candidate: {
            name: `agent-server directory archive, ${direction === 'upload' ? 'tar -c | curl' : 'curl | tar -x'}`,
            samples: serverRuns.map((run) => run[key]),
          },
          unit: 'ms',
          higherIsBetter: false,
          notes:
            'no goal: native tools on the client, so what remains over the baseline is the server',
        }),
      ];
      if (direction === 'download') {
        floors.push(
          roundsComparison({
            scenario: `${FILES} files download on ${label}, the least a Node client costs: a fresh Node process handing the agent-server's archive to tar -x vs tar | curl`,
            baseline,
            candidate: { name: 'node:http GET → tar -x, fresh process', samples: nodeTarRuns },
            unit: 'ms',
            higherIsBetter: false,
            notes:
              'no goal: no checks of ours (no-follow, limits, atomic files); the floor for any Node client on this machine',
          }),
        );
      }
      return [first, warm, ...floors];
    });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
