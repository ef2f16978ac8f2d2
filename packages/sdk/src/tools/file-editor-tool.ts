import path from 'node:path';
import { z } from 'zod';
import type { Tool, ToolContext, ToolObservation } from './tool.js';
import { ToolFailure } from './tool-failure.js';
import { truncateForModel } from './truncate-for-model.js';
import { WorkspaceFiles } from './workspace-files.js';

/** LLM-facing name of {@link FileEditorTool}. */
export const FILE_EDITOR_TOOL_NAME = 'file_editor';
/** Largest file the editor reads or edits, in bytes (OpenHands' 10 MB). */
export const MAX_EDITOR_FILE_BYTES = 10 * 1024 * 1024;
/** Edits per file that `undo_edit` can revert (OpenHands' 10). */
export const MAX_EDITOR_UNDO_STEPS = 10;
/** Lines shown before and after an edit in the snippet of the result. */
export const EDITOR_SNIPPET_CONTEXT_LINES = 4;

const FILE_CLIPPED_HINT =
  'Only part of this file has been shown to you; use `view_range`, or search inside the file with `grep -n`, to see the rest.';
const DIRECTORY_CLIPPED_HINT =
  'Only part of this directory has been shown to you; use `ls -la` to view large directories incrementally.';

const DESCRIPTION = `Custom editing tool for viewing, creating and editing files in plain-text format
* State is persistent across command calls and discussions with the user
* If \`path\` is a text file, \`view\` displays the result of applying \`cat -n\`. If \`path\` is a directory, \`view\` lists non-hidden files and directories up to 2 levels deep
* The \`create\` command cannot be used if the specified \`path\` already exists as a file
* If a \`command\` generates a long output, it will be truncated and marked with \`<response clipped>\`
* The \`undo_edit\` command will revert the last edit made to the file at \`path\`
* This tool can be used for creating and editing files in plain-text format (UTF-8).


Before using this tool:
1. Use the view tool to understand the file's contents and context
2. Verify the directory path is correct (only applicable when creating new files):
   - Use the view tool to verify the parent directory exists and is the correct location

When making edits:
   - Ensure the edit results in idiomatic, correct code
   - Do not leave the code in a broken state
   - Always use absolute file paths (starting with /)

CRITICAL REQUIREMENTS FOR USING THIS TOOL:

1. EXACT MATCHING: The \`old_str\` parameter must match EXACTLY one or more consecutive lines from the file, including all whitespace and indentation. The tool will fail if \`old_str\` matches multiple locations or doesn't match exactly with the file content.

2. UNIQUENESS: The \`old_str\` must uniquely identify a single instance in the file:
   - Include sufficient context before and after the change point (3-5 lines recommended)
   - If not unique, the replacement will not be performed

3. REPLACEMENT: The \`new_str\` parameter should contain the edited lines that replace the \`old_str\`. Both strings must be different.

Remember: when making multiple file edits in a row to the same file, you should prefer to send all edits in a single message with multiple calls to this tool, rather than multiple messages with a single call each.`;

/** Arguments of {@link FileEditorTool}, as OpenHands' `FileEditorAction` (`str_replace_editor`). */
export const fileEditorArgsSchema = z.object({
  command: z
    .enum(['view', 'create', 'str_replace', 'insert', 'undo_edit'])
    .describe(
      'The commands to run. Allowed options are: `view`, `create`, `str_replace`, `insert`, `undo_edit`.',
    ),
  path: z.string().describe('Absolute path to file or directory.'),
  file_text: z
    .string()
    .nullish()
    .describe(
      'Required parameter of `create` command, with the content of the file to be created.',
    ),
  old_str: z
    .string()
    .nullish()
    .describe(
      'Required parameter of `str_replace` command containing the string in `path` to replace.',
    ),
  new_str: z
    .string()
    .nullish()
    .describe(
      'Optional parameter of `str_replace` command containing the new string (if not given, no string will be added). Required parameter of `insert` command containing the string to insert.',
    ),
  insert_line: z
    .number()
    .int()
    .min(0)
    .nullish()
    .describe(
      'Required parameter of `insert` command. The `new_str` will be inserted AFTER the line `insert_line` of `path`.',
    ),
  view_range: z
    .array(z.number().int())
    .nullish()
    .describe(
      'Optional parameter of `view` command when `path` points to a file. If none is given, the full file is shown. If provided, the file will be shown in the indicated line number range, e.g. [11, 12] will show lines 11 and 12. Indexing at 1 to start. Setting `[start_line, -1]` shows all lines from `start_line` to the end of the file.',
    ),
});

/** Arguments of {@link FileEditorTool}. */
export type FileEditorArgs = z.infer<typeof fileEditorArgsSchema>;

/** Options of {@link FileEditorTool}. */
export interface FileEditorToolOptions {
  /** The workspace's working directory, named in the description so the model starts there. */
  workingDir?: string | undefined;
}

/** A text file as the editor works on it: `\n` line ends, with how to write it back. */
interface TextFile {
  /** The content with `\r\n` turned into `\n` when the file uses CRLF throughout. */
  text: string;
  /** The content exactly as on disk (for undo). */
  raw: string;
  crlf: boolean;
  mode: number | undefined;
  /** Where writes go (symbolic links resolved). */
  realPath: string;
}

/**
 * OpenHands' `file_editor` (`str_replace_editor` semantics) on the workspace contract: `view`,
 * `create`, `str_replace`, `insert`, `undo_edit` on absolute paths. Files move through
 * {@link WorkspaceFiles} (download/upload of a temporary local copy), so any name and size up to
 * {@link MAX_EDITOR_FILE_BYTES} work on any workspace type; files must be UTF-8 text. Edits keep
 * the file's permission bits, its symbolic link and its CRLF line ends. `undo_edit` reverts the
 * last edit of a file made by this instance (removing a file it created).
 */
export class FileEditorTool implements Tool<FileEditorArgs> {
  readonly name = FILE_EDITOR_TOOL_NAME;
  readonly description: string;
  readonly parameters = fileEditorArgsSchema;
  /** Per path, the content before each edit, newest last; `null`: the file did not exist. */
  readonly #history = new Map<string, (string | null)[]>();

  constructor({ workingDir }: FileEditorToolOptions = {}) {
    this.description =
      workingDir === undefined
        ? DESCRIPTION
        : `${DESCRIPTION}\n\nYour current working directory is: ${workingDir}\nWhen exploring project structure, start with this directory instead of the root filesystem.`;
  }

  async execute(args: FileEditorArgs, context: ToolContext): Promise<ToolObservation> {
    try {
      return await this.#execute(args, context);
    } catch (error) {
      if (!(error instanceof ToolFailure)) throw error;
      return {
        text: error.message,
        content: { command: args.command, path: args.path },
        isError: true,
      };
    }
  }

  async #execute(args: FileEditorArgs, context: ToolContext): Promise<ToolObservation> {
    const target = absolutePath(args.path, context.workspace.workingDir);
    const files = new WorkspaceFiles({ workspace: context.workspace, signal: context.signal });
    switch (args.command) {
      case 'view':
        return this.#view(files, target, args.view_range ?? undefined);
      case 'create':
        return this.#create(files, target, required(args.file_text, 'file_text', 'create'));
      case 'str_replace': {
        const oldStr = required(args.old_str, 'old_str', 'str_replace');
        const newStr = args.new_str ?? '';
        if (newStr === oldStr) {
          throw invalid(
            'new_str',
            newStr,
            'No replacement was performed. `new_str` and `old_str` must be different.',
          );
        }
        return this.#strReplace(files, target, oldStr, newStr);
      }
      case 'insert':
        return this.#insert(
          files,
          target,
          required(args.insert_line, 'insert_line', 'insert'),
          required(args.new_str, 'new_str', 'insert'),
        );
      case 'undo_edit':
        return this.#undo(files, target);
    }
  }

  async #view(
    files: WorkspaceFiles,
    target: string,
    viewRange: number[] | undefined,
  ): Promise<ToolObservation> {
    const info = await files.probe(target);
    if (info.kind === 'missing') throw missing(target);
    if (info.kind === 'other') throw notAFile(target, info.kind);
    if (info.kind === 'directory') {
      if (viewRange !== undefined) {
        throw invalid(
          'view_range',
          JSON.stringify(viewRange),
          'The `view_range` parameter is not allowed when `path` points to a directory.',
        );
      }
      const output = await listDirectory(files, target);
      return {
        text: truncateForModel(output, { hint: DIRECTORY_CLIPPED_HINT }),
        content: { command: 'view', path: target, output },
        isError: false,
      };
    }
    const file = await readTextFile(files, target);
    const lines = splitLines(file.text);
    let output: string;
    if (viewRange === undefined) {
      output = catN(lines, 1, target);
    } else {
      const [start, requestedEnd] = viewRange;
      if (viewRange.length !== 2 || start === undefined || requestedEnd === undefined) {
        throw invalid(
          'view_range',
          JSON.stringify(viewRange),
          'It should be a list of two integers.',
        );
      }
      if (start < 1 || start > lines.length) {
        throw invalid(
          'view_range',
          JSON.stringify(viewRange),
          `Its first element \`${start}\` should be within the range of lines of the file: [1, ${lines.length}].`,
        );
      }
      let end = requestedEnd === -1 ? lines.length : requestedEnd;
      if (end < start) {
        throw invalid(
          'view_range',
          JSON.stringify(viewRange),
          `Its second element \`${requestedEnd}\` should be -1 or larger than or equal to its first element \`${start}\`.`,
        );
      }
      let note = '';
      if (end > lines.length) {
        note = `NOTE: We only show up to ${lines.length} since there're only ${lines.length} lines in this file.\n`;
        end = lines.length;
      }
      output = note + catN(lines.slice(start - 1, end), start, target);
    }
    return {
      text: truncateForModel(output, { hint: FILE_CLIPPED_HINT }),
      content: { command: 'view', path: target, output },
      isError: false,
    };
  }

  async #create(files: WorkspaceFiles, target: string, fileText: string): Promise<ToolObservation> {
    const info = await files.probe(target);
    if (info.kind !== 'missing') {
      throw invalid(
        'path',
        target,
        `File already exists at: ${target}. Cannot overwrite files using command \`create\`.`,
      );
    }
    checkSize(target, Buffer.byteLength(fileText));
    await files.write(target, fileText);
    this.#remember(target, null);
    return {
      text: `File created successfully at: ${target}`,
      content: {
        command: 'create',
        path: target,
        prev_exist: false,
        old_content: null,
        new_content: fileText,
      },
      isError: false,
    };
  }

  async #strReplace(
    files: WorkspaceFiles,
    target: string,
    oldStrGiven: string,
    newStrGiven: string,
  ): Promise<ToolObservation> {
    const file = await readTextFile(files, target);
    // In a CRLF file the model's `\r\n` would never match the `\n`-normalised text.
    let oldStr = file.crlf ? toLf(oldStrGiven) : oldStrGiven;
    const newStr = file.crlf ? toLf(newStrGiven) : newStrGiven;
    let found = occurrences(file.text, oldStr);
    if (found.length === 0) {
      // OpenHands retries without surrounding whitespace, often a stray newline.
      oldStr = oldStr.trim();
      found = oldStr === '' ? [] : occurrences(file.text, oldStr);
    }
    if (found.length === 0) {
      throw new ToolFailure(
        `No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${target}.`,
      );
    }
    if (found.length > 1) {
      const lines = [...new Set(found.map((index) => lineOf(file.text, index)))];
      throw new ToolFailure(
        `No replacement was performed. Multiple occurrences of old_str \`${oldStr}\` in lines [${lines.join(', ')}]. Please ensure it is unique.`,
      );
    }
    const index = found[0]!;
    const text = file.text.slice(0, index) + newStr + file.text.slice(index + oldStr.length);
    const written = await this.#save(files, file, target, text);
    const line = lineOf(file.text, index);
    const start = Math.max(0, line - EDITOR_SNIPPET_CONTEXT_LINES);
    const end = line + EDITOR_SNIPPET_CONTEXT_LINES + countNewlines(newStr);
    const snippet = catN(splitLines(text).slice(start, end), start + 1, `a snippet of ${target}`);
    return edited(
      'str_replace',
      target,
      file.raw,
      written,
      `The file ${target} has been edited. ${snippet}Review the changes and make sure they are as expected. Edit the file again if necessary.`,
    );
  }

  async #insert(
    files: WorkspaceFiles,
    target: string,
    insertLine: number,
    newStrGiven: string,
  ): Promise<ToolObservation> {
    const file = await readTextFile(files, target);
    const newStr = file.crlf ? toLf(newStrGiven) : newStrGiven;
    const lines = splitLines(file.text);
    if (insertLine > lines.length) {
      throw invalid(
        'insert_line',
        String(insertLine),
        `It should be within the range of allowed values: [0, ${lines.length}]`,
      );
    }
    const inserted = newStr.split('\n');
    const result = [...lines.slice(0, insertLine), ...inserted, ...lines.slice(insertLine)];
    // Every line ends with a newline, but the last keeps the file's own ending.
    const endsWithNewline =
      file.text === '' || file.text.endsWith('\n') || insertLine === lines.length;
    const text = result.join('\n') + (endsWithNewline ? '\n' : '');
    const written = await this.#save(files, file, target, text);
    const start = Math.max(0, insertLine - EDITOR_SNIPPET_CONTEXT_LINES);
    const end = Math.min(
      result.length,
      insertLine + EDITOR_SNIPPET_CONTEXT_LINES + inserted.length,
    );
    const snippet = catN(result.slice(start, end), start + 1, 'a snippet of the edited file');
    return edited(
      'insert',
      target,
      file.raw,
      written,
      `The file ${target} has been edited. ${snippet}Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.`,
    );
  }

  async #undo(files: WorkspaceFiles, target: string): Promise<ToolObservation> {
    const history = this.#history.get(target);
    if (history === undefined || history.length === 0) {
      throw new ToolFailure(`No edit history found for ${target}.`);
    }
    const info = await files.probe(target);
    if (info.kind === 'directory' || info.kind === 'other') throw notAFile(target, info.kind);
    const current = info.kind === 'file' ? await readTextFile(files, target) : undefined;
    const previous = history.pop()!;
    if (history.length === 0) this.#history.delete(target);
    const content = {
      command: 'undo_edit',
      path: target,
      prev_exist: current !== undefined,
      old_content: current?.raw ?? null,
      new_content: previous,
    };
    if (previous === null) {
      await files.remove(target);
      return {
        text: `Last edit to ${target} undone successfully: the file did not exist before this tool created it, so it was removed.`,
        content,
        isError: false,
      };
    }
    await files.write(current?.realPath ?? target, previous, current?.mode);
    const text = splitLines(previous.replaceAll('\r\n', '\n'));
    return {
      text: truncateForModel(
        `Last edit to ${target} undone successfully. ${catN(text, 1, target)}`,
        {
          hint: FILE_CLIPPED_HINT,
        },
      ),
      content,
      isError: false,
    };
  }

  /** Writes `text` back the way the file was (line ends, mode, link) and records the undo step. */
  async #save(
    files: WorkspaceFiles,
    file: TextFile,
    target: string,
    text: string,
  ): Promise<string> {
    const raw = file.crlf ? text.replaceAll('\n', '\r\n') : text;
    checkSize(target, Buffer.byteLength(raw));
    await files.write(file.realPath, raw, file.mode);
    this.#remember(target, file.raw);
    return raw;
  }

  #remember(target: string, previous: string | null): void {
    const history = this.#history.get(target) ?? [];
    history.push(previous);
    if (history.length > MAX_EDITOR_UNDO_STEPS) history.shift();
    this.#history.set(target, history);
  }
}

/** The model's path, normalised; a relative one is refused with the absolute path it may mean. */
function absolutePath(given: string, workingDir: string): string {
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
async function readTextFile(files: WorkspaceFiles, target: string): Promise<TextFile> {
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
async function listDirectory(files: WorkspaceFiles, directory: string): Promise<string> {
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
function splitLines(text: string): string[] {
  if (text === '') return [];
  return (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
}

/** `cat -n` of `lines` numbered from `first`, with OpenHands' header. */
function catN(lines: readonly string[], first: number, description: string): string {
  const numbered = lines.map((line, index) => `${String(index + first).padStart(6)}\t${line}`);
  return `Here's the result of running \`cat -n\` on ${description}:\n${numbered.join('\n')}\n`;
}

/** Start indexes of the non-overlapping occurrences of `needle`. */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
    found.push(at);
  }
  return found;
}

/** 1-based line of the character at `index`. */
function lineOf(text: string, index: number): number {
  return countNewlines(text.slice(0, index)) + 1;
}

function countNewlines(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count += 1;
  return count;
}

function toLf(text: string): string {
  return text.replaceAll('\r\n', '\n');
}

/** The observation of a successful edit; `content` has the file before and after, as on disk. */
function edited(
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

function checkSize(target: string, bytes: number): void {
  if (bytes > MAX_EDITOR_FILE_BYTES) {
    throw new ToolFailure(
      `File validation failed for ${target}: File is too large (${(bytes / 1024 / 1024).toFixed(1)}MB). Maximum allowed size is ${MAX_EDITOR_FILE_BYTES / 1024 / 1024}MB.`,
    );
  }
}

function required<T>(value: T | null | undefined, parameter: string, command: string): T {
  if (value === undefined || value === null) {
    throw new ToolFailure(`Parameter \`${parameter}\` is required for command: ${command}.`);
  }
  return value;
}

function invalid(parameter: string, value: string, hint: string): ToolFailure {
  return new ToolFailure(`Invalid \`${parameter}\` parameter: ${value}. ${hint}`);
}

function missing(target: string): ToolFailure {
  return invalid('path', target, `The path ${target} does not exist. Please provide a valid path.`);
}

function notAFile(target: string, kind: 'directory' | 'other'): ToolFailure {
  const reason =
    kind === 'directory'
      ? `The path ${target} is a directory and only the \`view\` command can be used on directories.`
      : `The path ${target} is not a regular file or directory.`;
  return invalid('path', target, reason);
}
