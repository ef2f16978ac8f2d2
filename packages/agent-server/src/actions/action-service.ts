import { invalidArgument } from '@agent-workspace/core';
import {
  ACTION_ARGS_SCHEMAS,
  type ActionWire,
  cmdRunArgsSchema,
  errorObservation,
  fileEditArgsSchema,
  fileReadArgsSchema,
  fileWriteArgsSchema,
  type ObservationWire,
} from '@agent-workspace/protocol';
import { BUILT_IN_PLUGIN_ACTIONS, parseActionArgs } from '@agent-workspace/runtime-plugins';
import type { ServerContext } from '../app/server-context.js';
import { readFileAction, writeFileAction } from './file-actions.js';
import { FileEditorActions } from './file-editor-actions.js';
import { runCommandAction } from './run-command-action.js';
import { ServerWorkspace } from './server-workspace.js';

/** The actions the server runs itself; the rest belong to its runtime plugins. */
export const CORE_ACTIONS = ['run', 'read', 'write', 'edit'] as const;

/**
 * Runs OpenHands actions for `POST /execute_action`: `run`, `read`, `write` and `edit` through
 * the same services as the bash and file routes, plugin actions (`browse`, `run_ipython`, ...)
 * through the server's plugin host (`context.plugins`, which may start after this service).
 */
export class ActionService {
  readonly #context: ServerContext;
  readonly #editor: FileEditorActions;

  constructor(context: ServerContext) {
    this.#context = context;
    this.#editor = new FileEditorActions(new ServerWorkspace(context));
  }

  /** Every action name this server knows, its plugins' included. */
  actionNames(): string[] {
    return [...CORE_ACTIONS, ...(this.#context.plugins?.actionNames() ?? [])];
  }

  /**
   * Runs `action` and answers its observation.
   *
   * @throws WorkspaceError `INVALID_ARGUMENT` naming `action.action` (unknown) or
   * `action.args.<field>`; the bash service's start errors for `run` (cwd, limits).
   */
  async execute(action: ActionWire, signal: AbortSignal): Promise<ObservationWire> {
    const timeoutSeconds = action.timeout ?? this.#context.options.actionTimeoutSeconds;
    switch (action.action) {
      case 'run':
        return runCommandAction(
          this.#context,
          parseActionArgs(cmdRunArgsSchema, action),
          timeoutSeconds,
          signal,
        );
      case 'read': {
        const args = parseActionArgs(fileReadArgsSchema, action);
        return args.impl_source === 'oh_aci'
          ? this.#editor.view(args, signal)
          : readFileAction(this.#context, args);
      }
      case 'write':
        return writeFileAction(this.#context, parseActionArgs(fileWriteArgsSchema, action));
      case 'edit':
        return this.#editor.edit(parseActionArgs(fileEditArgsSchema, action), signal);
    }
    const plugins = this.#context.plugins;
    await plugins?.loaded;
    if (plugins?.handles(action.action)) return plugins.executeAction(action, { signal });
    if (action.action in ACTION_ARGS_SCHEMAS) {
      return errorObservation(
        `No runtime plugin runs ${action.action} on this server; start the server with --plugin ${BUILT_IN_PLUGIN_ACTIONS[action.action]}.`,
        'PLUGIN_DISABLED',
      );
    }
    throw invalidArgument(
      'action.action',
      `${JSON.stringify(action.action)} is not an action this server runs (it runs ${this.actionNames().join(', ')})`,
    );
  }
}
