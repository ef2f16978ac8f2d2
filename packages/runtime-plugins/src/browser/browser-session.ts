import path from 'node:path';
import type { CommandSandbox } from '@agent-workspace/core';
import { errorObservation, type ObservationWire } from '@agent-workspace/protocol';
import type { BrowserType } from 'playwright-core';
import type { ProcessTreeWatch } from '../memory/memory-monitor.js';
import type { PluginHealth, PluginLogger } from '../plugin/runtime-plugin.js';
import type { BrowserUrlPolicy } from './browser-url-policy.js';
import { ChromiumInstance } from './chromium-instance.js';
import type { ChromiumProxy } from './chromium-proxy.js';
import { Deadline } from './deadline.js';
import { observePage } from './observe-page.js';
import type { BrowserAction } from './parse-browser-actions.js';
import { runBrowserActions } from './run-browser-actions.js';
import { saveDownloads } from './save-downloads.js';

/** Most time a download the page navigated to may take to be reported. */
const DOWNLOAD_START_TIMEOUT_MS = 5_000;
/** Least time a relaunch right after a death is tried with; with less it waits for the next action. */
const MIN_RELAUNCH_MS = 2_000;

/** What a {@link BrowserSession} needs. */
export interface BrowserSessionOptions {
  /** Playwright's `chromium` browser type. */
  chromium: BrowserType;
  executablePath: string;
  /**
   * The plugin's private directory (the profile, downloads in progress, the sandbox launcher);
   * with a `sandbox`, writable inside it at the same path.
   */
  stateDir: string;
  /** The workspace; downloads are saved into its `downloads/` folder. */
  workingDir: string;
  viewport: { width: number; height: number };
  /** Cap of the page's Markdown in an observation's `content`, in characters. */
  maxContentChars: number;
  logger: PluginLogger;
  watchProcessTree: (watch: ProcessTreeWatch) => () => void;
  /** Chromium's whole environment. */
  env: Readonly<Record<string, string>>;
  /** The proxy every request goes through (loopback excepted), if any. */
  proxy: ChromiumProxy | undefined;
  /** Runs Chromium inside this command sandbox. */
  sandbox: CommandSandbox | undefined;
  /** Which URLs pages may load and observations may show. */
  urlPolicy: BrowserUrlPolicy;
}

/** One `browse` or `browse_interactive` call. */
export interface BrowserRunRequest {
  trigger: 'browse' | 'browse_interactive';
  actions: readonly BrowserAction[];
  /** The action as the agent wrote it, for `last_browser_action`. */
  actionText: string;
  returnAxtree: boolean;
  /** Time the whole call may take: the actions, the page loads and the observation. */
  timeoutMs: number;
  signal: AbortSignal;
}

/**
 * The browser of one plugin: launches Chromium when first needed, runs one action at a time
 * (later calls queue), and answers each with a `browse` observation. A Chromium that dies (a
 * crash, the memory monitor, a kill) is noticed at once; the action in flight answers an `error`
 * observation saying so, and a new Chromium is launched right then when time allows, else by the
 * next action.
 */
export class BrowserSession implements AsyncDisposable {
  readonly #options: BrowserSessionOptions;
  #instance: ChromiumInstance | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(options: BrowserSessionOptions) {
    this.#options = options;
  }

  /** Launches Chromium now (if it is not running), within `timeoutMs`. */
  start(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const deadline = Deadline.after(timeoutMs, signal);
    return this.#exclusive(async () => {
      await this.#ensure(deadline);
    });
  }

  /** Runs one call and answers its observation; never rejects for what happens in the page. */
  run(request: BrowserRunRequest): Promise<ObservationWire> {
    // A little before the host's own timeout, so the observation gets back in time.
    const deadline = Deadline.after(
      request.timeoutMs - Math.min(500, request.timeoutMs * 0.05),
      request.signal,
    );
    return this.#exclusive(async () => {
      if (this.#closed) return closedObservation();
      if (deadline.expired) return cancelledObservation();
      let instance: ChromiumInstance;
      try {
        instance = await this.#ensure(deadline);
      } catch (error) {
        if (this.#closed) return closedObservation();
        const reason = error instanceof Error ? error.message : String(error);
        return errorObservation(
          `Chromium could not be started: ${reason.slice(0, 2_000)}`,
          'BROWSER_UNAVAILABLE',
        );
      }
      try {
        const observation = await this.#perform(instance, request, deadline);
        if (this.#closed) return closedObservation();
        if (!instance.alive) return await this.#afterDeath(instance, deadline);
        if (deadline.aborted) return cancelledObservation();
        return observation;
      } catch (error) {
        if (this.#closed) return closedObservation();
        if (!instance.alive) return await this.#afterDeath(instance, deadline);
        throw error;
      }
    });
  }

  /** Healthy while Chromium runs; with its memory. */
  health(): PluginHealth {
    if (this.#closed) return { healthy: false, detail: 'closed' };
    const instance = this.#instance;
    if (!instance)
      return { healthy: false, detail: 'Chromium is not running; the next action starts it' };
    if (!instance.alive) {
      return {
        healthy: false,
        detail: `${instance.deathReason ?? 'Chromium exited'}; the next action starts it again`,
      };
    }
    return {
      healthy: true,
      detail: `Chromium${instance.pid === undefined ? '' : ` (pid ${instance.pid})`}, ${instance.pages().length} page(s) open`,
      memoryBytes: instance.memoryBytes(),
    };
  }

  /** Closes Chromium (an action in flight answers at once) and leaves none of its processes. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      await this.#instance?.close();
      await this.#queue.catch(() => {});
      // An instance launched while the first close ran.
      await this.#instance?.close();
    })();
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #perform(
    instance: ChromiumInstance,
    request: BrowserRunRequest,
    deadline: Deadline,
  ): Promise<ObservationWire> {
    const reserveMs = observationReserveMs(request.timeoutMs);
    const errors: string[] = [];
    await instance.closeActivePageIfStuck(deadline);
    const failure = await runBrowserActions(instance, request.actions, deadline.earlier(reserveMs));
    if (failure !== undefined) errors.push(failure);
    await instance.settleDownloads(deadline.timeoutMs(DOWNLOAD_START_TIMEOUT_MS));
    const downloads = await saveDownloads(
      instance.takeDownloads(),
      path.join(this.#options.workingDir, 'downloads'),
      deadline.earlier(reserveMs / 2),
    );
    errors.push(...downloads.errors);
    return observePage(
      instance,
      {
        trigger: request.trigger,
        actionText: request.actionText,
        returnAxtree: request.returnAxtree,
        maxContentChars: this.#options.maxContentChars,
        errors,
        downloads: downloads.saved,
      },
      deadline,
    );
  }

  /** The running instance, launching a new one when there is none or it died. */
  async #ensure(deadline: Deadline): Promise<ChromiumInstance> {
    if (this.#instance?.alive) return this.#instance;
    if (this.#instance) {
      // Dead: whatever it left behind goes before its profile is reused.
      await this.#instance.close();
      this.#instance = undefined;
    }
    if (deadline.expired) throw new Error('no time was left to launch it');
    const instance = await ChromiumInstance.launch({
      chromium: this.#options.chromium,
      executablePath: this.#options.executablePath,
      stateDir: this.#options.stateDir,
      viewport: this.#options.viewport,
      timeoutMs: deadline.timeoutMs(),
      logger: this.#options.logger,
      watchProcessTree: this.#options.watchProcessTree,
      env: this.#options.env,
      proxy: this.#options.proxy,
      sandbox: this.#options.sandbox,
      urlPolicy: this.#options.urlPolicy,
    });
    if (this.#closed) {
      await instance.close();
      throw new Error('the browser plugin closed');
    }
    this.#instance = instance;
    this.#options.logger.info({ pid: instance.pid }, 'Chromium started');
    return instance;
  }

  async #afterDeath(instance: ChromiumInstance, deadline: Deadline): Promise<ObservationWire> {
    const reason = instance.deathReason ?? 'Chromium exited';
    let restarted = false;
    if (deadline.remainingMs() >= MIN_RELAUNCH_MS) {
      restarted = await this.#ensure(deadline).then(
        () => true,
        (error: unknown) => {
          this.#options.logger.warn({ error: String(error) }, 'relaunching Chromium failed');
          return false;
        },
      );
    }
    return errorObservation(
      `During this action ${reason}; the action did not complete. Chromium ${
        restarted ? 'was restarted' : 'is restarted by the next action'
      }, without the pages that were open. Run the action again.`,
      'BROWSER_RESTARTED',
    );
  }

  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(work);
    this.#queue = result.catch(() => {});
    return result;
  }
}

/**
 * Time kept for the observation after the actions: a quarter of the call's time, at least a
 * second (half of very short calls) and at most 15 s.
 */
function observationReserveMs(timeoutMs: number): number {
  return Math.min(15_000, Math.max(timeoutMs * 0.25, Math.min(1_000, timeoutMs / 2)));
}

function closedObservation(): ObservationWire {
  return errorObservation('The browser plugin is closed.', 'PLUGIN_CLOSED');
}

function cancelledObservation(): ObservationWire {
  return errorObservation('The browser action was cancelled.', 'ABORTED');
}
