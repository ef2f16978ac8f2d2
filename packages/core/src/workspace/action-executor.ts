import type {
  ActionWire,
  ObservationWire,
  RuntimePluginStatusWire,
} from '@agent-workspace/protocol';
import type { Workspace } from './workspace.js';

/** Options of {@link ActionExecutor.executeAction}. */
export interface ExecuteActionOptions {
  signal?: AbortSignal | undefined;
}

/**
 * Something that runs OpenHands actions (`run`, `read`, `write`, `edit`, `run_ipython`,
 * `browse`, `browse_interactive`) and answers observations: an agent-server's
 * `/execute_action` (through `RemoteWorkspace` and the provisioned workspaces over it), or a
 * local plugin host. A workspace is one when it declares the `runtimeActions` capability
 * (found with {@link actionExecutorOf}), never by its methods or class.
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

/**
 * `candidate` as an {@link ActionExecutor} when it is a workspace that declares the
 * `runtimeActions` capability (see `WorkspaceCapabilities`), else `undefined`.
 */
export function actionExecutorOf(candidate: unknown): ActionExecutor | undefined {
  const workspace = candidate as Workspace | null | undefined;
  return workspace?.capabilities?.runtimeActions === true
    ? (workspace as Workspace & ActionExecutor)
    : undefined;
}
