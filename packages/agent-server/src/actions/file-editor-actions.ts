import { WorkspaceError } from '@agent-workspace/core';
import {
  type ErrorObservationWire,
  errorObservation,
  type FileEditArgs,
  type FileEditObservationWire,
  type FileReadArgs,
  type FileReadObservationWire,
} from '@agent-workspace/protocol';
import type { FileEditorArgs, FileEditorTool, ToolObservation } from '@agent-workspace/sdk';
import { createTwoFilesPatch } from 'diff';
import type { ServerWorkspace } from './server-workspace.js';

/**
 * OpenHands' `edit` and `read` with `impl_source: "oh_aci"`: the SDK's file editor (view, create,
 * str_replace, insert, undo_edit) over the server's own services, so paths are confined and
 * commands sandboxed as everywhere else. One editor per server keeps the undo history.
 */
export class FileEditorActions {
  /** Made on first use: the SDK (with its LLM libraries) stays off the server's start-up. */
  #editor: Promise<FileEditorTool> | undefined;
  readonly #workspace: ServerWorkspace;

  async #run(
    args: FileEditorArgs,
    signal: AbortSignal,
  ): Promise<ToolObservation | ErrorObservationWire> {
    this.#editor ??= import('@agent-workspace/sdk').then(
      ({ FileEditorTool }) => new FileEditorTool({ workingDir: this.#workspace.workingDir }),
    );
    return runEditor(await this.#editor, args, this.#workspace, signal);
  }

  constructor(workspace: ServerWorkspace) {
    this.#workspace = workspace;
  }

  /**
   * `edit`: the editor command's output, with a unified diff of what changed. A path the server
   * refuses (outside the working directory when confined) is an `error` observation.
   */
  async edit(
    args: FileEditArgs,
    signal: AbortSignal,
  ): Promise<FileEditObservationWire | ErrorObservationWire> {
    const result = await this.#run(
      {
        command: args.command,
        path: args.path,
        file_text: args.file_text,
        old_str: args.old_str,
        new_str: args.new_str,
        insert_line: args.insert_line,
        view_range: args.view_range,
      },
      signal,
    );
    if ('observation' in result) return result;
    const before = stringOrNull(result.content.old_content);
    const after = stringOrNull(result.content.new_content);
    const changed = !result.isError && after !== null && args.command !== 'view';
    return {
      observation: 'edit',
      content: result.isError ? `ERROR:\n${result.text}` : result.text,
      message: `I edited the file ${args.path}.`,
      extras: {
        path: args.path,
        prev_exist: result.content.prev_exist === true,
        old_content: args.old_str ?? null,
        new_content: args.new_str ?? null,
        impl_source: 'oh_aci',
        diff: changed ? createTwoFilesPatch(args.path, args.path, before ?? '', after) : null,
      },
    };
  }

  /** `read` through the editor's `view` (numbered lines, or a directory listing). */
  async view(
    args: FileReadArgs,
    signal: AbortSignal,
  ): Promise<FileReadObservationWire | ErrorObservationWire> {
    const result = await this.#run(
      { command: 'view', path: args.path, view_range: args.view_range },
      signal,
    );
    if ('observation' in result) return result;
    return {
      observation: 'read',
      content: result.isError ? `ERROR:\n${result.text}` : result.text,
      message: `I read the file ${args.path}.`,
      extras: { path: args.path, impl_source: 'oh_aci' },
    };
  }
}

/** Runs the editor; a refusal of the server's services becomes an `error` observation. */
async function runEditor(
  editor: FileEditorTool,
  args: FileEditorArgs,
  workspace: ServerWorkspace,
  signal: AbortSignal,
): Promise<ToolObservation | ErrorObservationWire> {
  try {
    return await editor.execute(args, { workspace, signal });
  } catch (error) {
    if (!WorkspaceError.isInstance(error) || error.code === 'INVALID_ARGUMENT') throw error;
    return errorObservation(`ERROR:\n${error.message}`, error.code);
  }
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
