import path from 'node:path';
import { runGit as runGitWithInput } from '@agent-workspace/core/internal';
import { type CopyTreeEntriesResult, copyTreeEntries } from './copy-tree-entries.js';
import { GIT_CALL_TIMEOUT_MS, gitError, gitOrThrow, runGit } from './run-git.js';

/**
 * Gives the new tree the source's index (every entry, conflict stages included; a clone gets
 * the blobs it lacks packed from the source) and copies the source's files into it: the
 * index's paths (those deleted in the source stay deleted), the untracked ones git does not
 * ignore (nested repositories whole), and with `includeIgnored` the ignored ones. Submodules
 * get an empty directory, as a checkout without `submodule update` leaves them. Then refreshes
 * the new index.
 */
export async function carryTreeState(options: {
  source: string;
  target: string;
  kind: 'worktree' | 'clone';
  includeIgnored: boolean;
  signal: AbortSignal | undefined;
}): Promise<CopyTreeEntriesResult> {
  const { source, target, kind, includeIgnored, signal } = options;
  const index = await gitOrThrow(['ls-files', '--stage', '-z'], { cwd: source, signal });
  const paths: string[] = [];
  const submodules: string[] = [];
  const blobs = new Set<string>();
  for (const entry of index.split('\0')) {
    const tab = entry.indexOf('\t');
    if (tab < 0) continue;
    const [mode, object] = entry.slice(0, tab).split(' ');
    const entryPath = entry.slice(tab + 1);
    if (mode === '160000') {
      submodules.push(entryPath);
    } else {
      paths.push(entryPath);
      if (object !== undefined) blobs.add(object);
    }
  }
  const others = ['ls-files', '-z', '--others', '--exclude-standard'];
  const listings = [gitOrThrow(others, { cwd: source, signal })];
  if (includeIgnored) {
    listings.push(gitOrThrow([...others, '--ignored'], { cwd: source, signal }));
  }
  for (const listing of await Promise.all(listings)) {
    // A nested repository is listed as `dir/`, and copied whole.
    paths.push(...listing.split('\0').filter((name) => name !== ''));
  }
  if (kind === 'clone' && blobs.size > 0) await packMissing(source, target, [...blobs], signal);
  await gitWithInput(['update-index', '-z', '--index-info'], target, index, signal);
  const copied = await copyTreeEntries({
    source,
    destination: target,
    paths,
    directories: submodules,
    signal,
  });
  // Fills in the entries' file stats, so the next status needs not read every file. Exit 1
  // only says that some entries differ from their files (unstaged changes).
  const refreshed = await runGit(['update-index', '-q', '--refresh'], { cwd: target, signal });
  if (refreshed.exitCode > 1) throw gitError(['update-index'], target, refreshed);
  return copied;
}

/** Packs the objects of `objects` the clone `target` lacks from `source` into its store. */
async function packMissing(
  source: string,
  target: string,
  objects: string[],
  signal: AbortSignal | undefined,
): Promise<void> {
  const checked = await gitWithInput(
    ['cat-file', '--batch-check'],
    target,
    `${objects.join('\n')}\n`,
    signal,
  );
  const missing = checked
    .split('\n')
    .filter((line) => line.endsWith(' missing'))
    .map((line) => line.slice(0, line.indexOf(' ')));
  if (missing.length === 0) return;
  await gitWithInput(
    ['pack-objects', '-q', path.join(await packDirectory(target, signal), 'pack')],
    source,
    `${missing.join('\n')}\n`,
    signal,
  );
}

/**
 * Gives the clone `target` the stash of the clone `source`: its entries' commits packed from
 * the source (what `head` does not reach), then stored oldest first with their messages.
 */
export async function carryStash(
  source: string,
  target: string,
  head: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  const list = await gitOrThrow(['stash', 'list', '--format=%H%x00%gs'], { cwd: source, signal });
  const entries = list
    .split('\n')
    .filter((line) => line.includes('\0'))
    .map((line) => line.split('\0') as [string, string])
    .reverse();
  if (entries.length === 0) return;
  await gitWithInput(
    ['pack-objects', '--revs', '-q', path.join(await packDirectory(target, signal), 'pack')],
    source,
    `${entries.map(([commit]) => commit).join('\n')}\n^${head}\n`,
    signal,
  );
  for (const [commit, message] of entries) {
    await gitOrThrow(['stash', 'store', '-q', '-m', message, commit], { cwd: target, signal });
  }
}

/** The absolute path of the `objects/pack` directory of the repository at `tree`. */
async function packDirectory(tree: string, signal: AbortSignal | undefined): Promise<string> {
  const output = await gitOrThrow(
    ['rev-parse', '--path-format=absolute', '--git-path', 'objects/pack'],
    { cwd: tree, signal },
  );
  return output.trim();
}

/** `git <args>` in `cwd` with `input` on its standard input; a non-zero exit is a `GIT_ERROR`. */
async function gitWithInput(
  args: string[],
  cwd: string,
  input: string,
  signal: AbortSignal | undefined,
): Promise<string> {
  const result = await runGitWithInput(args, {
    cwd,
    input,
    signal,
    timeoutMs: GIT_CALL_TIMEOUT_MS,
  });
  if (result.exitCode !== 0) throw gitError(args, cwd, result);
  return result.stdout;
}
