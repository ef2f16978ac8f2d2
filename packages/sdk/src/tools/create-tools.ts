import { invalidArgument } from '@agent-workspace/core';
import { TOOL_NAMES, type ToolName } from '@agent-workspace/protocol';
import { BrowserTool } from './browser-tool.js';
import { FileEditorTool } from './file-editor-tool.js';
import { FinishTool } from './finish-tool.js';
import { IPythonTool } from './ipython-tool.js';
import { TaskTrackerTool } from './task-tracker-tool.js';
import { TerminalTool } from './terminal-tool.js';
import type { Tool } from './tool.js';

export { TOOL_NAMES, type ToolName };

/**
 * A tool as an OpenHands agent's JSON names it. `params` (OpenHands' session settings such as
 * `terminal_type`) are accepted and ignored.
 */
export interface ToolReference {
  name: string;
  params?: Record<string, unknown> | undefined;
}

/** Options of {@link createTool}. */
export interface CreateToolOptions {
  /** The workspace's working directory, told to the model in the file editor's description. */
  workingDir?: string | undefined;
}

/** Options of {@link createTools}. */
export interface CreateToolsOptions extends CreateToolOptions {
  /** Add `FinishTool` when the list lacks it, as OpenHands does; default `true`. */
  includeFinish?: boolean | undefined;
}

const FACTORIES: Record<ToolName, (options: CreateToolOptions) => Tool> = {
  TerminalTool: () => new TerminalTool(),
  FileEditorTool: ({ workingDir }) => new FileEditorTool({ workingDir }),
  TaskTrackerTool: () => new TaskTrackerTool(),
  BrowserTool: () => new BrowserTool(),
  IPythonTool: () => new IPythonTool(),
  FinishTool: () => new FinishTool(),
};

/** True when `name` is one of {@link TOOL_NAMES}. */
export function isToolName(name: string): name is ToolName {
  return (TOOL_NAMES as readonly string[]).includes(name);
}

/**
 * A fresh tool instance (its own terminal session, undo history, task list) for a spec name.
 *
 * @throws WorkspaceError `INVALID_ARGUMENT` naming an unknown tool and listing the known ones.
 */
export function createTool(
  reference: string | ToolReference,
  options: CreateToolOptions = {},
): Tool {
  const name = typeof reference === 'string' ? reference : reference.name;
  if (!isToolName(name)) {
    throw invalidArgument(
      'tools',
      `names ${JSON.stringify(name)}, which is not a known tool; known tools: ${TOOL_NAMES.join(', ')}`,
    );
  }
  return FACTORIES[name](options);
}

/**
 * Fresh instances for an agent's tool list, in order, with `FinishTool` added at the end unless
 * listed or `includeFinish: false`.
 *
 * @example
 * ```ts
 * const tools = createTools([{ name: 'TerminalTool' }, { name: 'FileEditorTool' }]);
 * tools.map((tool) => tool.name); // ['terminal', 'file_editor', 'finish']
 * ```
 * @throws WorkspaceError `INVALID_ARGUMENT` for an unknown or repeated name.
 */
export function createTools(
  references: readonly (string | ToolReference)[],
  { includeFinish = true, ...options }: CreateToolsOptions = {},
): Tool[] {
  const names = references.map((reference) =>
    typeof reference === 'string' ? reference : reference.name,
  );
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated !== undefined) throw invalidArgument('tools', `lists ${repeated} twice`);
  const tools = references.map((reference) => createTool(reference, options));
  if (includeFinish && !names.includes('FinishTool')) tools.push(new FinishTool());
  return tools;
}
