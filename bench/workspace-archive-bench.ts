import { execFile } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startAgentServerProcess } from './agent-server-process.js';
import { bestOf, type Comparison, roundsComparison } from './bench-harness.js';
import { digestTree, FILES, startRawTarServer, writeTree } from './directory-transfer-bench.js';

const ROUNDS = 5;
const API_KEY = 'bench-session-key';
/** Files the git-delta scenario changes and adds on top of the committed tree. */
const CHANGED = 1_000;
const run = promisify(execFile);

/** Runs a bash pipeline with `args` as `$1…` and returns its wall time in ms. */
async function timePipeline(script: string, ...args: string[]): Promise<number> {
  const began = performance.now();
  await run('bash', ['-o', 'pipefail', '-c', script, 'bash', ...args], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return performance.now() - began;
}

/** The URL of OpenHands' archive route on the agent-server at `url`. */
function archiveUrl(url: string, query: Record<string, string>): string {
  return `${url}/api/file/archive?${new URLSearchParams(query)}`;
}

/**
 * A repository holding the bench tree in one commit, then `CHANGED` files modified and
 * `CHANGED` untracked files added: what an eval harness archives after an agent's run.
 */
async function writeChangedRepository(root: string): Promise<void> {
  await writeTree(root);
  const git = (...args: string[]) => run('git', ['-C', root, ...args]);
  await git('init', '-q', '-b', 'main');
  await git('add', '-A');
  await git(
    '-c',
    'user.name=bench',
    '-c',
    'user.email=bench@example.invalid',
    'commit',
    '-qm',
    'tree',
  );
  for (let index = 0; index < CHANGED; index += 1) {
    await appendFile(path.join(root, 'd1', `f${index}.txt`), `changed ${index}\n`);
  }
  await mkdir(path.join(root, 'added'));
  await Promise.all(
    Array.from({ length: CHANGED }, (_, index) =>
      writeFile(path.join(root, 'added', `n${index}.txt`), `new file ${index}\n`),
    ),
  );
}

/**
 * OpenHands' `GET /api/file/archive` on our agent-server, streamed to `curl`:
 * - `format=tar.gz` of a 10 000-file tree, extracted by `tar -xz`, against `tar -cz` served by
 *   node:http (the directory-transfer bench's raw server) into the same `tar -xz`;
 * - `format=git-delta` of that tree committed with 1 000 files changed and 1 000 added, against
 *   the same git work by hand (scratch index and object store, `read-tree`, `add -A`,
 *   `diff --binary --cached`) in bash.
 * Rounds interleaved, best of each side; every copy and patch is checked.
 */
export async function benchWorkspaceArchive(): Promise<Comparison[]> {
  const root = await mkdtemp(path.join(tmpdir(), 'bench-archive-'));
  try {
    const tree = path.join(root, 'tree');
    const repository = path.join(root, 'repository');
    await writeTree(tree);
    await writeChangedRepository(repository);
    const expected = await digestTree(tree);
    const raw = await startRawTarServer();
    try {
      await using server = await startAgentServerProcess([
        '--working-dir',
        root,
        '--session-api-key',
        API_KEY,
      ]);
      const extract = async (side: string, round: number, script: string, url: string) => {
        const back = path.join(root, `${side}-${round}`);
        await mkdir(back);
        const ms = await timePipeline(script, url, back, API_KEY);
        if ((await digestTree(back)) !== expected) throw new Error(`${side} archive differs`);
        await rm(back, { recursive: true, force: true });
        return ms;
      };
      const tarGz = await bestOf({
        rounds: ROUNDS,
        warmup: 1,
        baseline: (round) =>
          extract(
            'raw',
            round,
            `curl -sSf "$1" | tar -xz -C "$2"`,
            `${raw.url}/?dir=${encodeURIComponent(tree)}&gzip=1`,
          ),
        candidate: (round) =>
          extract(
            'ours',
            round,
            // Rooted at the directory's name, with a manifest beside the files.
            `curl -sSf -H "X-Session-API-Key: $3" "$1" | tar -xz --strip-components=1 -C "$2" && rm "$2/archive_manifest.json"`,
            archiveUrl(server.url, { path: tree, format: 'tar.gz', use_default_excludes: 'false' }),
          ),
      });
      const delta = await deltaRounds(server.url, repository, root);
      return [
        roundsComparison({
          scenario: `${FILES} files as OpenHands tar.gz archive vs tar -cz | curl (wall time, lower is better)`,
          baseline: { name: 'tar -cz + node:http | curl | tar -xz', samples: tarGz.baseline },
          candidate: {
            name: 'GET /api/file/archive?format=tar.gz | curl | tar -xz',
            samples: tarGz.candidate,
          },
          unit: 'ms',
          higherIsBetter: false,
          target: 'ratio ≤ 1.5',
          notes: expected,
        }),
        roundsComparison({
          scenario: `git-delta of ${CHANGED} changed + ${CHANGED} added files in a ${FILES}-file repository vs git by hand (wall time, lower is better)`,
          baseline: {
            name: 'git read-tree + add -A + diff --binary --cached',
            samples: delta.baseline,
          },
          candidate: {
            name: 'GET /api/file/archive?format=git-delta | curl',
            samples: delta.candidate,
          },
          unit: 'ms',
          higherIsBetter: false,
          target: 'ratio ≤ 1.5',
        }),
      ];
    } finally {
      await raw.stop();
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** Rounds of the git-delta scenario; both patches must apply to a clean clone of the commit. */
async function deltaRounds(url: string, repository: string, root: string) {
  const byHand = `scratch=$(mktemp -d) && mkdir "$scratch/objects" &&
    export GIT_INDEX_FILE="$scratch/index" GIT_OBJECT_DIRECTORY="$scratch/objects" \
      GIT_ALTERNATE_OBJECT_DIRECTORIES="$1/.git/objects" &&
    git -C "$1" read-tree HEAD && git -C "$1" add -A -- . &&
    git -C "$1" diff --binary --no-ext-diff --no-textconv --cached HEAD -- . > "$2";
    status=$?; rm -rf "$scratch"; exit $status`;
  const ours = `curl -sSf -H "X-Session-API-Key: $3" "$1" > "$2"`;
  const deltaUrl = archiveUrl(url, { path: repository, format: 'git-delta' });
  const checkout = path.join(root, 'checkout');
  await run('git', ['clone', '-q', repository, checkout]);
  const check = async (patch: string) => {
    await run('git', ['-C', checkout, 'apply', '--check', patch]);
    await rm(patch);
  };
  return bestOf({
    rounds: ROUNDS,
    warmup: 1,
    baseline: async (round) => {
      const patch = path.join(root, `raw-${round}.patch`);
      const ms = await timePipeline(byHand, repository, patch);
      await check(patch);
      return ms;
    },
    candidate: async (round) => {
      const patch = path.join(root, `ours-${round}.patch`);
      const ms = await timePipeline(ours, deltaUrl, patch, API_KEY);
      await check(patch);
      return ms;
    },
  });
}
