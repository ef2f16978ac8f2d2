import type {
  ActionWire,
  BrowserOutputObservationWire,
  ErrorObservationWire,
  IPythonRunCellObservationWire,
  ObservationWire,
} from '@agent-workspace/protocol';
import {
  MAX_ACTION_TIMEOUT_SECONDS,
  MAX_BROWSE_URL_CHARS,
  MAX_BROWSER_ACTIONS_CHARS,
  MAX_IPYTHON_CODE_CHARS,
} from '@agent-workspace/protocol/constants';
import { invalidArgument } from '../errors/invalid-argument.js';
import type { ActionExecutor } from './action-executor.js';

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
 * {@link RuntimeActions} over any {@link ActionExecutor}: a workspace with the `runtimeActions`
 * capability (`BaseWorkspace.browse` and friends are these) or a local plugin host. Arguments
 * are checked before anything is sent: `INVALID_ARGUMENT` naming `url`, `browserActions`,
 * `code`, `returnAxtree` or `timeoutSeconds` (empty, too long — see the `MAX_*` limits of
 * `@agent-workspace/protocol/constants` — or of the wrong type).
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
    const timeout = actionTimeout(options.timeoutSeconds);
    if (timeout !== undefined) wire.timeout = timeout;
    return executor.executeAction(wire, { signal: options.signal });
  };
  // The wire schemas load with the first answer: importing core stays free of zod.
  const observations = () => import('./runtime-observations.js');
  return {
    async browse(url, options = {}) {
      const args = {
        url: checkedText(url, 'url', MAX_BROWSE_URL_CHARS),
        return_axtree: returnAxtree(options),
      };
      const observation = await run('browse', args, options);
      return (await observations()).browserObservationOf(observation, 'browse');
    },
    async browseInteractive(browserActions, options = {}) {
      const args = {
        browser_actions: checkedText(browserActions, 'browserActions', MAX_BROWSER_ACTIONS_CHARS),
        return_axtree: returnAxtree(options),
      };
      const observation = await run('browse_interactive', args, options);
      return (await observations()).browserObservationOf(observation, 'browse_interactive');
    },
    async runIpython(code, options = {}) {
      const args = { code: checkedText(code, 'code', MAX_IPYTHON_CODE_CHARS) };
      const observation = await run('run_ipython', args, options);
      return (await observations()).ipythonObservationOf(observation);
    },
  };
}

/** `timeoutSeconds` checked against the wire's bounds; `undefined` when not given. */
function actionTimeout(timeoutSeconds: number | undefined): number | undefined {
  if (timeoutSeconds === undefined) return undefined;
  if (
    typeof timeoutSeconds !== 'number' ||
    !Number.isFinite(timeoutSeconds) ||
    timeoutSeconds <= 0 ||
    timeoutSeconds > MAX_ACTION_TIMEOUT_SECONDS
  ) {
    throw invalidArgument(
      'timeoutSeconds',
      `must be a number of seconds above 0 and at most ${MAX_ACTION_TIMEOUT_SECONDS}`,
    );
  }
  return timeoutSeconds;
}

/** `value` when it is a non-blank string of at most `max` characters. */
function checkedText(value: unknown, field: string, max: number): string {
  if (typeof value !== 'string' || value.trim().length === 0) {
    throw invalidArgument(field, 'must be a non-empty string');
  }
  if (value.length > max) throw invalidArgument(field, `must be at most ${max} characters`);
  return value;
}

/** The `returnAxtree` option as the wire's boolean (default false). */
function returnAxtree(options: BrowseOptions): boolean {
  const value = options.returnAxtree ?? false;
  if (typeof value !== 'boolean') throw invalidArgument('returnAxtree', 'must be a boolean');
  return value;
}
