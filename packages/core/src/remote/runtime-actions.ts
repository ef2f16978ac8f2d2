import type {
  ActionWire,
  BrowserOutputObservationWire,
  ErrorObservationWire,
  IPythonRunCellObservationWire,
  ObservationWire,
} from '@agent-workspace/protocol';
import { MAX_ACTION_TIMEOUT_SECONDS } from '@agent-workspace/protocol/constants';
import { invalidArgument } from '../errors/invalid-argument.js';
import type { ActionExecutor } from '../workspace/action-executor.js';

/** Options of every typed runtime action ({@link RuntimeActions}). */
export interface RuntimeActionOptions {
  /** Cancels the call; the action is abandoned (`ABORTED`). */
  signal?: AbortSignal | undefined;
  /**
   * Hard limit of the action, in seconds (the wire's `timeout`), at most
   * `MAX_ACTION_TIMEOUT_SECONDS`; default the executor's own (two minutes on our servers).
   */
  timeoutSeconds?: number | undefined;
}

/** Options of {@link RuntimeActions.browse} and {@link RuntimeActions.browseInteractive}. */
export interface BrowseOptions extends RuntimeActionOptions {
  /** Ask for the page's accessibility tree (`return_axtree`). Default false. */
  returnAxtree?: boolean | undefined;
}

/** What a browser action answers: the page, or why the browser could not act. */
export type BrowserObservation = BrowserOutputObservationWire | ErrorObservationWire;

/** What an IPython cell answers: its output, or why the kernel could not run it. */
export type IPythonObservation = IPythonRunCellObservationWire | ErrorObservationWire;

/**
 * Typed calls of the runtime plugins' OpenHands actions. An action that fails in a way an agent
 * should read (a page that did not load, a plugin that is not enabled) is an `error`
 * observation; a wrong argument is a `WorkspaceError` `INVALID_ARGUMENT` naming it; an answer of
 * another type is `PROTOCOL_ERROR`.
 */
export interface RuntimeActions {
  /** `browse`: opens `url` (http(s), `file:` or `about:`) in the browser plugin. */
  browse(url: string, options?: BrowseOptions): Promise<BrowserObservation>;
  /**
   * `browse_interactive`: runs BrowserGym action calls, one per line, such as
   * `goto("https://…")`, `click("12")`, `fill("7", "text")`, `scroll(0, 400)`, `go_back()`.
   */
  browseInteractive(browserActions: string, options?: BrowseOptions): Promise<BrowserObservation>;
  /** `run_ipython`: runs `code` as one cell of the persistent IPython kernel. */
  runIpython(code: string, options?: RuntimeActionOptions): Promise<IPythonObservation>;
}

/**
 * {@link RuntimeActions} over any {@link ActionExecutor}: an agent-server (`RemoteWorkspace` and
 * the provisioned workspaces over it) or a local plugin host.
 *
 * @example
 * ```ts
 * const observation = await runtimeActionsOf(workspace).runIpython('6 * 7');
 * if (observation.observation === 'run_ipython') console.log(observation.content);
 * ```
 */
export function runtimeActionsOf(executor: ActionExecutor): RuntimeActions {
  const run = async (
    action: string,
    args: Record<string, unknown>,
    options: RuntimeActionOptions,
  ): Promise<ObservationWire> => {
    const wire: ActionWire = { action, args };
    const { timeoutSeconds, signal } = options;
    if (timeoutSeconds !== undefined) {
      if (
        !Number.isFinite(timeoutSeconds) ||
        timeoutSeconds <= 0 ||
        timeoutSeconds > MAX_ACTION_TIMEOUT_SECONDS
      ) {
        throw invalidArgument(
          'timeoutSeconds',
          `must be a number of seconds above 0 and at most ${MAX_ACTION_TIMEOUT_SECONDS}`,
        );
      }
      wire.timeout = timeoutSeconds;
    }
    return executor.executeAction(wire, { signal });
  };
  // The wire schemas load with the first answer: importing core stays free of zod.
  const observations = () => import('./runtime-observations.js');
  return {
    async browse(url, options = {}) {
      const observation = await run(
        'browse',
        { url, return_axtree: options.returnAxtree ?? false },
        options,
      );
      return (await observations()).browserObservationOf(observation, 'browse');
    },
    async browseInteractive(browserActions, options = {}) {
      const observation = await run(
        'browse_interactive',
        { browser_actions: browserActions, return_axtree: options.returnAxtree ?? false },
        options,
      );
      return (await observations()).browserObservationOf(observation, 'browse_interactive');
    },
    async runIpython(code, options = {}) {
      const observation = await run('run_ipython', { code }, options);
      return (await observations()).ipythonObservationOf(observation);
    },
  };
}
