import {
  FILE_EDITOR_DESCRIPTION,
  type FileEditorArgs,
  fileEditorArgsSchema,
} from './file-editor-args.js';
import {
  absolutePath,
  catN,
  checkSize,
  countNewlines,
  DIRECTORY_CLIPPED_HINT,
  edited,
  FILE_CLIPPED_HINT,
  invalid,
  lineOf,
  listDirectory,
  missing,
  notAFile,
  occurrences,
  readTextFile,
  required,
  splitLines,
  type TextFile,
  toLf,
} from './text-file.js';
import type { Tool, ToolContext, ToolObservation } from './tool.js';
import { ToolFailure } from './tool-failure.js';
import { truncateForModel } from './truncate-for-model.js';
import { WorkspaceFiles } from './workspace-files.js';

/** LLM-facing name of {@link FileEditorTool}. */
export const FILE_EDITOR_TOOL_NAME = 'file_editor';
/** Edits per file that `undo_edit` can revert (OpenHands' 10). */
export const MAX_EDITOR_UNDO_STEPS = 10;
/** Lines shown before and after an edit in the snippet of the result. */
export const EDITOR_SNIPPET_CONTEXT_LINES = 4;

/** Options of {@link FileEditorTool}. */
export interface FileEditorToolOptions {
  /** The workspace's working directory, named in the description so the model starts there. */
  workingDir?: string | undefined;
}

/**
 * OpenHands' `file_editor` (`str_replace_editor` semantics) on the workspace contract: `view`,
 * `create`, `str_replace`, `insert`, `undo_edit` on absolute paths. Files move through
 * {@link WorkspaceFiles} (download/upload of a temporary local copy), so any name and size up to
 * `MAX_EDITOR_FILE_BYTES` work on any workspace type; files must be UTF-8 text. Edits keep
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
        ? FILE_EDITOR_DESCRIPTION
        : `${FILE_EDITOR_DESCRIPTION}\n\nYour current working directory is: ${workingDir}\nWhen exploring project structure, start with this directory instead of the root filesystem.`;
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
