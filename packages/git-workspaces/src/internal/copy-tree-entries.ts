import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  realpathSync,
  symlinkSync,
} from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { abortedError } from '@agent-workspace/core';
import { copyDirectoryTree, DirectoryHandle, PROC_FD_WALKS } from '@agent-workspace/core/internal';

/** Input of {@link copyTreeEntries}. */
export interface CopyTreeEntriesOptions {
  /** The tree read from. */
  source: string;
  /** The tree written to (an existing directory). */
  destination: string;
  /**
   * Relative `/`-separated paths of the files and symbolic links to copy (git's listing); one
   * ending with `/` (a nested repository) is a directory copied whole, its `.git` included.
   */
  paths: readonly string[];
  /** Relative paths of directories to make even when empty (submodule mount points). */
  directories?: readonly string[] | undefined;
  /** Checked before each entry; the call then rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
}

/** What {@link copyTreeEntries} copied. */
export interface CopyTreeEntriesResult {
  /** `reflink` when every regular file was cloned copy-on-write, `copy` when bytes were copied. */
  method: 'reflink' | 'copy';
  /** Regular files copied (reflinked where the file system can). */
  files: number;
  /** Symbolic links recreated with the same target. */
  links: number;
  /** Bytes of the regular files. */
  bytes: number;
}

/** One directory of the current walk, open on both sides. */
interface Level {
  name: string;
  /** `undefined` when the source has no real directory here (missing, or a link). */
  source: DirectoryHandle | undefined;
  /** Opened (made if missing) only once something is written below it. */
  destination: DirectoryHandle | undefined;
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const CLONE_FLAGS = constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE_FORCE;
// What a file system that cannot clone answers to `FICLONE`.
const NO_REFLINK = new Set(['ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'EINVAL', 'ENOSYS', 'ENOTTY']);

/** A copy's running totals; `method` is settled by its first file. */
interface Copied extends Omit<CopyTreeEntriesResult, 'method'> {
  method: CopyTreeEntriesResult['method'] | 'unknown';
}

/**
 * Copies the listed entries of one tree into another: regular files with their mode (a
 * copy-on-write clone where the file system allows, `FICLONE`, else a copy; the first file
 * tells), symbolic links as links with
 * the same target (never followed). Both trees are walked one directory at a time from opened
 * roots without following links (`DirectoryHandle`), and new files and links are made with
 * `O_EXCL` semantics through the opened destination directory, so a link placed in either tree,
 * even while the copy runs, can neither lead a read or a write out of it nor be written through.
 * An entry that is missing in the source, sits below a link or a non-directory, or is neither
 * a file nor a link (a FIFO, a socket) is skipped, as git would not see it; so is a path with
 * an empty, `.`, `..` or `.git` component.
 */
export async function copyTreeEntries(
  options: CopyTreeEntriesOptions,
): Promise<CopyTreeEntriesResult> {
  const { signal } = options;
  const result: Copied = { method: 'unknown', files: 0, links: 0, bytes: 0 };
  const stack: Level[] = [];
  try {
    const root: Level = { name: '', source: undefined, destination: undefined };
    stack.push(root);
    root.source = DirectoryHandle.open(realpathSync(options.source));
    root.destination = DirectoryHandle.open(realpathSync(options.destination));
    for (const directory of options.directories ?? []) {
      if (signal?.aborted) throw abortedError(signal);
      const parts = splitPath(directory);
      if (parts === undefined) continue;
      descend(stack, parts);
      destinationOf(stack);
    }
    for (const entry of [...new Set(options.paths)].sort()) {
      if (signal?.aborted) throw abortedError(signal);
      const whole = entry.endsWith('/');
      const parts = splitPath(whole ? entry.slice(0, -1) : entry);
      if (parts === undefined) continue;
      const name = parts.pop() as string;
      const level = descend(stack, parts);
      if (level.source === undefined) continue;
      if (whole) await copyWhole(stack, level.source, name, result, signal);
      else await copyEntry(stack, level.source, name, result);
    }
  } finally {
    for (const level of stack) {
      level.source?.close();
      level.destination?.close();
    }
  }
  return { ...result, method: result.method === 'copy' ? 'copy' : 'reflink' };
}

/** The components of a relative path, or `undefined` when one is unsafe. */
function splitPath(relative: string): string[] | undefined {
  const parts = relative.split('/');
  const unsafe = parts.some(
    (part) => part === '' || part === '.' || part === '..' || part.toLowerCase() === '.git',
  );
  return unsafe ? undefined : parts;
}

/** Moves the walk to the directory `parts` (closing levels left), returning its level. */
function descend(stack: Level[], parts: readonly string[]): Level {
  let common = 0;
  while (common < parts.length && stack[common + 1]?.name === parts[common]) common++;
  while (stack.length > common + 1) {
    const level = stack.pop() as Level;
    level.source?.close();
    level.destination?.close();
  }
  for (const part of parts.slice(common)) {
    const parent = stack.at(-1) as Level;
    stack.push({
      name: part,
      source: openOrUndefined(parent.source, part),
      destination: undefined,
    });
  }
  return stack.at(-1) as Level;
}

/** `parent`'s directory `name` opened without following a link; `undefined` when it is not one. */
function openOrUndefined(
  parent: DirectoryHandle | undefined,
  name: string,
): DirectoryHandle | undefined {
  if (parent === undefined) return undefined;
  try {
    return parent.openChild(name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/** The destination directory of the walk's current level, made (and opened) as needed. */
function destinationOf(stack: Level[]): DirectoryHandle {
  for (let index = 1; index < stack.length; index++) {
    const level = stack[index] as Level;
    if (level.destination !== undefined) continue;
    const parent = (stack[index - 1] as Level).destination as DirectoryHandle;
    try {
      mkdirSync(parent.child(level.name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    // O_NOFOLLOW: an entry made a link meanwhile fails here instead of being written through.
    level.destination = parent.openChild(level.name);
  }
  return (stack.at(-1) as Level).destination as DirectoryHandle;
}

/** Copies the file or link `name` of `source` into the current destination directory. */
async function copyEntry(
  stack: Level[],
  source: DirectoryHandle,
  name: string,
  result: Copied,
): Promise<void> {
  let fd: number;
  try {
    fd = openSync(source.child(name), READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') {
      const target = readlinkSync(source.child(name));
      symlinkSync(target, destinationOf(stack).child(name));
      result.links++;
      return;
    }
    // Deleted in the source (or a socket): git sees nothing there either.
    if (code === 'ENOENT' || code === 'ENXIO') return;
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return;
    // Through the descriptor: the file checked is the file copied. EXCL: no existing entry (nor
    // a link) at the destination is ever written through.
    const from = PROC_FD_WALKS ? `/proc/self/fd/${fd}` : source.child(name);
    await copyBytes(from, destinationOf(stack).child(name), result);
    result.files++;
    result.bytes += stats.size;
  } finally {
    closeSync(fd);
  }
}

/** Copies the directory `name` of `source` whole (core's `copyDirectoryTree`): links stay links. */
async function copyWhole(
  stack: Level[],
  source: DirectoryHandle,
  name: string,
  result: Copied,
  signal: AbortSignal | undefined,
): Promise<void> {
  const directory = openOrUndefined(source, name);
  if (directory === undefined) return;
  try {
    // The directory opened (not a link put in its place) is the one copied.
    const copied = await copyDirectoryTree({
      source: directory.realPath(),
      destination: destinationOf(stack).child(name),
      signal,
    });
    result.files += copied.files;
    result.bytes += copied.bytes;
    if (copied.files > 0 && result.method !== 'copy') result.method = copied.method;
  } finally {
    directory.close();
  }
}

/** Clones `from` to `to` copy-on-write while the file system can (its first file tells), else copies. */
async function copyBytes(from: string, to: string, result: Copied): Promise<void> {
  if (result.method !== 'copy') {
    try {
      await copyFile(from, to, CLONE_FLAGS);
      result.method = 'reflink';
      return;
    } catch (error) {
      if (
        result.method === 'reflink' ||
        !NO_REFLINK.has((error as NodeJS.ErrnoException).code ?? '')
      ) {
        throw error;
      }
      result.method = 'copy';
    }
  }
  await copyFile(from, to, constants.COPYFILE_EXCL);
}
