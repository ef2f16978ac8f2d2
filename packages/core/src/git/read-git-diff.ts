import { constants } from 'node:fs';
import { type FileHandle, lstat, open, readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import type { GitDiff } from '@agent-workspace/protocol';
import { invalidArgument } from '../errors/invalid-argument.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import type { CommandSandbox } from '../workspace/command-sandbox.js';
import { assertRepositoryInside } from './assert-repository-inside.js';
import { parseNameStatusRecords, splitNul } from './parse-name-status.js';
import { resolveBaseRef, validateBaseOptions } from './resolve-base-ref.js';
import {
  type GitPlace,
  gitFailure,
  gitOutput,
  isNotRepositoryError,
  runGit,
  runGitBytes,
  stripFinalNewline,
} from './run-git.js';

/** Default cap on each side of a diff, in bytes (1 MiB, as in OpenHands). */
export const DEFAULT_MAX_DIFF_FILE_BYTES = 1024 * 1024;

/** Input of {@link readGitDiff}. */
export interface ReadGitDiffOptions {
  /** Absolute path of a file inside a repository (it may have been deleted). */
  path: string;
  /** Base ref; mutually exclusive with `commit`. Default: the display policy. */
  ref?: string | undefined;
  /** Base commit sha (4..64 hex); mutually exclusive with `ref`. */
  commit?: string | undefined;
  /** Aborting kills the running git call and rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
  /** Largest content accepted on either side; default {@link DEFAULT_MAX_DIFF_FILE_BYTES}. */
  maxFileBytes?: number | undefined;
  /**
   * Run every git call inside this sandbox (`path` must be visible there). The file itself is
   * read on the host.
   */
  sandbox?: CommandSandbox | undefined;
  /**
   * Real path of the directory everything must stay in: a repository reaching outside it (see
   * `assertRepositoryInside`) and a file with more than one hard link are `FORBIDDEN`; the file
   * is read without following a link swapped in after the check.
   */
  confineTo?: string | undefined;
}

/**
 * Reads a file's content now (`modified`) and at the base (`original`), so a client can render
 * the diff. The base is chosen exactly as by `readGitChanges` (see {@link resolveBaseRef}), so a
 * diff lines up with the change list it was opened from.
 *
 * - Outside any work tree: `{ modified: null, original: null }`.
 * - `original` is the blob at the base (`""` when the path is absent there); `modified` is the
 *   file on disk (`""` when it was deleted). A path absent from both is `INVALID_ARGUMENT`.
 * - A file that git sees as renamed (reported `MOVED` by `readGitChanges`) diffs against the
 *   base content of its old path, so the rename shows its edits rather than a whole new file.
 * - Contents are exact: no trimming, no newline or encoding conversion, BOM kept (OpenHands
 *   strips trailing newlines). A symbolic link reads as its target, the way git stores it.
 * - Binary content (a NUL byte in the first 8000 bytes, git's test) or invalid UTF-8 reads as
 *   `""` on that side, as in OpenHands; the wire carries text only.
 * - A side larger than `maxFileBytes` (default 1 MiB) is `INVALID_ARGUMENT` with
 *   `details.sizeBytes`, rather than a silently empty side that would read as "all deleted".
 * - A directory or other non-regular file is `INVALID_ARGUMENT`; `ref` with `commit`, a `ref`
 *   starting with `-` or a malformed `commit` too. A base that does not resolve and any other git
 *   failure is `GIT_ERROR` with git's standard error.
 */
export async function readGitDiff(options: ReadGitDiffOptions): Promise<GitDiff> {
  const { path: target, ref, commit, signal, sandbox, confineTo } = options;
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_DIFF_FILE_BYTES;
  if (typeof target !== 'string' || !path.isAbsolute(target)) {
    throw invalidArgument('path', `must be an absolute path, got ${JSON.stringify(target)}`);
  }
  validateBaseOptions(ref, commit);
  if (!Number.isSafeInteger(maxFileBytes) || maxFileBytes < 0) {
    throw invalidArgument('maxFileBytes', `must be a non-negative integer, got ${maxFileBytes}`);
  }
  const kind = await fileKind(target);
  if (kind === 'directory') throw invalidArgument('path', `is a directory: ${target}`);
  if (kind === 'special') throw invalidArgument('path', `is not a regular file: ${target}`);

  const { dir, relative } = await locate(target);
  const probeArgs = ['rev-parse', '--is-inside-work-tree'];
  const git: GitPlace = { cwd: dir, signal, sandbox, confineTo };
  const probe = await runGit(probeArgs, git);
  if (probe.exitCode !== 0 && !isNotRepositoryError(probe.stderr)) {
    throw gitFailure(probeArgs, probe);
  }
  if (probe.exitCode !== 0 || stripFinalNewline(probe.stdout) !== 'true') {
    return { modified: null, original: null };
  }
  await assertRepositoryInside(git);

  const base = await resolveBaseRef({ ...git, ref, commit });
  const modified =
    kind === 'missing'
      ? undefined
      : await readCurrent(target, maxFileBytes, confineTo !== undefined);
  const read: BaseRead = { base, git, maxFileBytes, target };
  let original = await readAtBase(read, relative, false);
  if (original === undefined && modified !== undefined) {
    const source = await renameSource(read, relative);
    if (source !== undefined) original = await readAtBase(read, source, true);
  }
  if (original === undefined && modified === undefined) {
    throw invalidArgument('path', `does not exist in the work tree nor at the base: ${target}`);
  }
  return { modified: modified ?? '', original: original ?? '' };
}

type FileKind = 'file' | 'symlink' | 'directory' | 'special' | 'missing';

async function fileKind(target: string): Promise<FileKind> {
  const stats = await lstat(target).catch(() => undefined);
  if (stats === undefined) return 'missing';
  if (stats.isDirectory()) return 'directory';
  if (stats.isSymbolicLink()) return 'symlink';
  return stats.isFile() ? 'file' : 'special';
}

/** The nearest existing directory above `target` and `target`'s POSIX path relative to it. */
export async function locate(target: string): Promise<{ dir: string; relative: string }> {
  const segments = [path.basename(target)];
  let dir = path.dirname(target);
  while (!(await stat(dir).catch(() => undefined))?.isDirectory()) {
    const parent = path.dirname(dir);
    if (parent === dir) break;
    segments.unshift(path.basename(dir));
    dir = parent;
  }
  return { dir, relative: segments.join('/') };
}

/** What every base read needs (see {@link readAtBase}). */
export interface BaseRead {
  base: string;
  /** Where git runs (a directory inside the work tree). */
  git: GitPlace;
  maxFileBytes: number;
  /** The path asked about, for messages. */
  target: string;
}

/**
 * The text at the base of `file`, relative to `cwd` (or to the repository root with
 * `fromRoot`); `undefined` when no blob is there. A blob over `maxFileBytes` is
 * `INVALID_ARGUMENT` (field `path`).
 */
export async function readAtBase(
  { base, git, maxFileBytes, target }: BaseRead,
  file: string,
  fromRoot: boolean,
): Promise<string | undefined> {
  const args = ['ls-tree', '-z', '-l', ...(fromRoot ? ['--full-tree'] : []), base, '--', file];
  const listing = await gitOutput(args, git);
  for (const record of splitNul(listing)) {
    const match = /^\d+ (\w+) ([0-9a-f]+) +(\d+|-)\t([\s\S]*)$/.exec(record);
    if (!match || match[4] !== file) continue;
    // A tree or a gitlink at that path: there was no file content.
    if (match[1] !== 'blob') return undefined;
    assertSize(Number(match[3]), maxFileBytes, target);
    const args = ['cat-file', 'blob', match[2] as string];
    const result = await runGitBytes(args, { ...git, maxBuffer: maxFileBytes + 1 });
    if (result.exitCode !== 0) throw gitFailure(args, result);
    return decodeText(result.stdout);
  }
  return undefined;
}

/**
 * The root-relative old path when `relative` (from `cwd`) is the new path of a rename against
 * the base, so a MOVED file diffs against its previous content.
 */
async function renameSource(
  { base, git }: BaseRead,
  relative: string,
): Promise<string | undefined> {
  const prefix = stripFinalNewline(await gitOutput(['rev-parse', '--show-prefix'], git));
  const fromRoot = `${prefix}${relative}`;
  const diff = await gitOutput(
    ['diff', '--name-status', '-z', '-M', '--no-relative', '--no-ext-diff', base, '--'],
    git,
  );
  const rename = parseNameStatusRecords(diff).find(
    (record) => record.status.startsWith('R') && record.path === fromRoot,
  );
  return rename?.fromPath;
}

/**
 * The file's text now (a link's target text); `undefined` when it disappeared meanwhile. The
 * file is opened without following a link, so one swapped in after `lstat` is not read through;
 * with `refuseHardLinks`, a file with several names is `FORBIDDEN`.
 */
async function readCurrent(
  target: string,
  maxFileBytes: number,
  refuseHardLinks: boolean,
): Promise<string | undefined> {
  let handle: FileHandle | undefined;
  try {
    const stats = await lstat(target);
    if (stats.isSymbolicLink()) return await readlink(target, 'utf8');
    handle = await open(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const opened = await handle.stat();
    if (!opened.isFile()) throw invalidArgument('path', `is not a regular file: ${target}`);
    if (refuseHardLinks && opened.nlink > 1) {
      throw new WorkspaceError({
        code: 'FORBIDDEN',
        message: `path is a hard link (${opened.nlink} names); a confined server refuses files with more than one name: ${target}`,
        details: { field: 'path', reason: 'hard-link' },
      });
    }
    assertSize(opened.size, maxFileBytes, target);
    const bytes = await handle.readFile();
    assertSize(bytes.length, maxFileBytes, target);
    return decodeText(bytes);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    // A link swapped in between lstat and open.
    if (code === 'ELOOP') return await readlink(target, 'utf8');
    throw error;
  } finally {
    await handle?.close();
  }
}

function assertSize(sizeBytes: number, maxFileBytes: number, target: string): void {
  if (sizeBytes <= maxFileBytes) return;
  throw new WorkspaceError({
    code: 'INVALID_ARGUMENT',
    message: `path is too large to diff: ${target} (${sizeBytes} bytes, limit ${maxFileBytes})`,
    details: { field: 'path', sizeBytes, maxFileBytes },
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** UTF-8 text of `bytes`, or `""` for binary or non-UTF-8 content. */
export function decodeText(bytes: Uint8Array): string {
  if (bytes.subarray(0, 8000).includes(0)) return '';
  try {
    return utf8.decode(bytes);
  } catch {
    return '';
  }
}
