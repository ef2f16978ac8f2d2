import type {
  ActionWire,
  ObservationWire,
  RuntimePluginStatusWire,
} from '@agent-workspace/protocol';

/** Options of {@link ActionExecutor.executeAction}. */
export interface ExecuteActionOptions {
  signal?: AbortSignal | undefined;
}

/**
 * Something that runs OpenHands actions (`run`, `read`, `write`, `edit`, `run_ipython`,
 * `browse`, `browse_interactive`) and answers observations: an agent-server's
 * `/execute_action` (through `RemoteWorkspace` and the provisioned workspaces over it), or a
 * local plugin host. A capability, found with {@link actionExecutorOf}, never by class.
 */
export interface ActionExecutor {
  /**
   * Runs `action`. An action that fails in a way an agent should read (a plugin that is not
   * enabled, a page that did not load) is an `error` observation, not an exception.
   *
   * @throws WorkspaceError `INVALID_ARGUMENT` naming the action or argument that is wrong.
   */
  executeAction(action: ActionWire, options?: ExecuteActionOptions): Promise<ObservationWire>;
  /** The runtime plugins behind it and their state. */
  runtimePlugins(options?: {
    signal?: AbortSignal | undefined;
  }): Promise<RuntimePluginStatusWire[]>;
}

/** `candidate` as an {@link ActionExecutor} when it has both methods, else `undefined`. */
export function actionExecutorOf(candidate: unknown): ActionExecutor | undefined {
  const executor = candidate as Partial<ActionExecutor> | null | undefined;
  return typeof executor?.executeAction === 'function' &&
    typeof executor.runtimePlugins === 'function'
    ? (executor as ActionExecutor)
    : undefined;
}
