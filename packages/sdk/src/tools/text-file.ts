import path from 'node:path';
import type { ToolObservation } from './tool.js';
import { ToolFailure } from './tool-failure.js';
import { truncateForModel } from './truncate-for-model.js';
import type { WorkspaceFiles } from './workspace-files.js';

/** Largest file the editor reads or edits, in bytes (OpenHands' 10 MB). */
export const MAX_EDITOR_FILE_BYTES = 10 * 1024 * 1024;
/** Said when a file was clipped for the model. */
export const FILE_CLIPPED_HINT =
  'Only part of this file has been shown to you; use `view_range`, or search inside the file with `grep -n`, to see the rest.';
/** Said when a directory listing was clipped for the model. */
export const DIRECTORY_CLIPPED_HINT =
  'Only part of this directory has been shown to you; use `ls -la` to view large directories incrementally.';

/** A text file as the editor works on it: `\n` line ends, with how to write it back. */
export interface TextFile {
  /** The content with `\r\n` turned into `\n` when the file uses CRLF throughout. */
  text: string;
  /** The content exactly as on disk (for undo). */
  raw: string;
  crlf: boolean;
  mode: number | undefined;
  /** Where writes go (symbolic links resolved). */
  realPath: string;
}

/** The model's path, normalised; a relative one is refused with the absolute path it may mean. */
export function absolutePath(given: string, workingDir: string): string {
  if (!path.posix.isAbsolute(given)) {
    const suggestion = path.posix.join(workingDir, given);
    throw invalid(
      'path',
      given,
      `The path should be an absolute path, starting with \`/\`. Relative paths are not resolved; the working directory is ${workingDir}, so maybe you meant ${suggestion}?`,
    );
  }
  if (given.includes('\0'))
    throw invalid('path', JSON.stringify(given), 'It must not contain NUL bytes.');
  const normalized = path.posix.normalize(given);
  return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
}

/** Reads a file as UTF-8 text, refusing what is missing, a directory, too large or binary. */
export async function readTextFile(files: WorkspaceFiles, target: string): Promise<TextFile> {
  const info = await files.probe(target);
  if (info.kind === 'missing') throw missing(target);
  if (info.kind !== 'file') throw notAFile(target, info.kind);
  checkSize(target, info.size);
  const bytes = await files.read(target);
  checkSize(target, bytes.length);
  let raw: string;
  try {
    if (bytes.includes(0)) throw new Error('NUL byte');
    // `ignoreBOM` keeps a byte-order mark in the text, so it is written back.
    raw = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new ToolFailure(
      `File validation failed for ${target}: File appears to be binary or is not UTF-8 text, and cannot be read or edited by this tool.`,
    );
  }
  // CRLF throughout: edit with `\n` and write `\r\n` back. Mixed endings are left as they are.
  const crlf = raw.includes('\r\n') && !/(^|[^\r])\n/.test(raw);
  return { text: crlf ? toLf(raw) : raw, raw, crlf, mode: info.mode, realPath: info.realPath };
}

/** OpenHands' directory view: the directory, then each visible entry and its visible children. */
export async function listDirectory(files: WorkspaceFiles, directory: string): Promise<string> {
  const entries = await files.list(directory);
  const children = new Map<string, typeof entries>();
  let hidden = 0;
  for (const entry of entries) {
    const parent = path.posix.dirname(entry.path);
    if (entry.hidden) {
      if (parent === directory) hidden += 1;
      continue;
    }
    children.set(parent, [...(children.get(parent) ?? []), entry]);
  }
  const show = (entry: (typeof entries)[number]): string =>
    entry.isDirectory ? `${entry.path}/` : entry.path;
  const byPath = (a: { path: string }, b: { path: string }): number =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
  const lines = [`${directory === '/' ? '' : directory}/`];
  for (const entry of (children.get(directory) ?? []).sort(byPath)) {
    lines.push(show(entry));
    if (entry.isDirectory) {
      for (const child of (children.get(entry.path) ?? []).sort(byPath)) lines.push(show(child));
    }
  }
  let output = `Here's the files and directories up to 2 levels deep in ${directory}, excluding hidden items:\n${lines.join('\n')}`;
  if (hidden > 0) {
    output += `\n\n${hidden} hidden files/directories in this directory are excluded. You can use 'ls -la ${directory}' to see them.`;
  }
  return output;
}

/** The lines of a text; a final newline does not start another line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  return (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
}

/** `cat -n` of `lines` numbered from `first`, with OpenHands' header. */
export function catN(lines: readonly string[], first: number, description: string): string {
  const numbered = lines.map((line, index) => `${String(index + first).padStart(6)}\t${line}`);
  return `Here's the result of running \`cat -n\` on ${description}:\n${numbered.join('\n')}\n`;
}

/** Start indexes of the non-overlapping occurrences of `needle`. */
export function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
    found.push(at);
  }
  return found;
}

/** 1-based line of the character at `index`. */
export function lineOf(text: string, index: number): number {
  return countNewlines(text.slice(0, index)) + 1;
}

/** How many `\n` `text` holds. */
export function countNewlines(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count += 1;
  return count;
}

/** `text` with `\r\n` line ends turned into `\n`. */
export function toLf(text: string): string {
  return text.replaceAll('\r\n', '\n');
}

/** The observation of a successful edit; `content` has the file before and after, as on disk. */
export function edited(
  command: string,
  target: string,
  oldContent: string,
  newContent: string,
  message: string,
): ToolObservation {
  return {
    text: truncateForModel(message, { hint: FILE_CLIPPED_HINT }),
    content: {
      command,
      path: target,
      prev_exist: true,
      old_content: oldContent,
      new_content: newContent,
    },
    isError: false,
  };
}

/** Refuses a file over {@link MAX_EDITOR_FILE_BYTES}, with OpenHands' wording. */
export function checkSize(target: string, bytes: number): void {
  if (bytes > MAX_EDITOR_FILE_BYTES) {
    throw new ToolFailure(
      `File validation failed for ${target}: File is too large (${(bytes / 1024 / 1024).toFixed(1)}MB). Maximum allowed size is ${MAX_EDITOR_FILE_BYTES / 1024 / 1024}MB.`,
    );
  }
}

/** `value`, or the failure naming the missing `parameter` of `command`. */
export function required<T>(value: T | null | undefined, parameter: string, command: string): T {
  if (value === undefined || value === null) {
    throw new ToolFailure(`Parameter \`${parameter}\` is required for command: ${command}.`);
  }
  return value;
}

/** The failure of a `parameter` with a bad `value`, and what to do instead. */
export function invalid(parameter: string, value: string, hint: string): ToolFailure {
  return new ToolFailure(`Invalid \`${parameter}\` parameter: ${value}. ${hint}`);
}

/** The failure of a path that does not exist. */
export function missing(target: string): ToolFailure {
  return invalid('path', target, `The path ${target} does not exist. Please provide a valid path.`);
}

/** The failure of a path that is a directory or not a regular file. */
export function notAFile(target: string, kind: 'directory' | 'other'): ToolFailure {
  const reason =
    kind === 'directory'
      ? `The path ${target} is a directory and only the \`view\` command can be used on directories.`
      : `The path ${target} is not a regular file or directory.`;
  return invalid('path', target, reason);
}
