import type { CommandSandbox } from '@agent-workspace/core';
import type { BrowserContext, BrowserType, Download, Page } from 'playwright-core';
import type { ProcessTreeWatch } from '../memory/memory-monitor.js';
import { processTree, readProcessTable, readResidentBytes } from '../memory/read-process-table.js';
import type { PluginLogger } from '../plugin/runtime-plugin.js';
import type { BrowserUrlPolicy } from './browser-url-policy.js';
import type { ChromiumProxy } from './chromium-proxy.js';
import { Deadline } from './deadline.js';
import { findChromiumPid } from './find-chromium-pid.js';
import { guardFileUrls } from './guard-file-urls.js';
import { launchChromium } from './launch-chromium.js';

/** Bound on a graceful close before the process group is killed. */
const CLOSE_TIMEOUT_MS = 5_000;
/** Bound on closing one unresponsive page before the whole browser is killed instead. */
const PAGE_CLOSE_TIMEOUT_MS = 5_000;
/** Most time the active page may take to answer a trivial script before it counts as stuck. */
const PROBE_TIMEOUT_MS = 3_000;

/** What {@link ChromiumInstance.launch} needs. */
export interface ChromiumLaunchOptions {
  /** Playwright's `chromium` browser type. */
  chromium: BrowserType;
  executablePath: string;
  /** The plugin's private directory: the profile and in-progress downloads live here. */
  stateDir: string;
  viewport: { width: number; height: number };
  /** Bound on the launch. */
  timeoutMs: number;
  logger: PluginLogger;
  watchProcessTree: (watch: ProcessTreeWatch) => () => void;
  /** Chromium's whole environment. */
  env: Readonly<Record<string, string>>;
  /** The proxy every request goes through (loopback excepted), if any. */
  proxy: ChromiumProxy | undefined;
  /** Runs Chromium inside this sandbox; `stateDir` must be writable there at the same path. */
  sandbox: CommandSandbox | undefined;
  /** Which URLs pages may load and observations may show; `file:` requests are held to it. */
  urlPolicy: BrowserUrlPolicy;
}

/**
 * One running Chromium (headless, a persistent profile in the state directory, downloads
 * accepted) and what the plugin tracks about it: its pid (registered with the memory monitor),
 * the open pages and the active one (a popup becomes active), downloads not yet saved, and whether
 * it died. It never relaunches itself; the session replaces a dead instance.
 */
export class ChromiumInstance {
  /** The persistent context: the browser's one context, holding every page. */
  readonly context: BrowserContext;
  /** Which URLs pages may load and observations may show. */
  readonly urlPolicy: BrowserUrlPolicy;
  /** The browser process, when `/proc` shows it. */
  readonly pid: number | undefined;
  readonly #logger: PluginLogger;
  readonly #unwatch: () => void;
  #active: Page | undefined;
  #downloads: Download[] = [];
  #downloadsSeen = 0;
  #downloadsExpected = 0;
  #pagesSeen = 0;
  #popupTargets = 0;
  /** Woken whenever a page or a download shows up. */
  readonly #waiters = new Set<() => void>();
  #killedBecause: string | undefined;
  #deathReason: string | undefined;
  #closing = false;

  private constructor(
    context: BrowserContext,
    pid: number | undefined,
    options: ChromiumLaunchOptions,
  ) {
    this.context = context;
    this.urlPolicy = options.urlPolicy;
    this.pid = pid;
    this.#logger = options.logger;
    context.on('close', () => this.#onClose());
    context.on('page', (page) => {
      this.#track(page);
      this.#active = page;
      this.#pagesSeen++;
      this.#wake();
    });
    for (const page of context.pages()) this.#track(page);
    this.#active = context.pages().at(-1);
    if (pid === undefined) {
      options.logger.warn(
        {},
        'could not find the Chromium process in /proc; its memory is not watched',
      );
      this.#unwatch = () => {};
    } else {
      this.#unwatch = options.watchProcessTree({
        label: 'chromium',
        pid,
        onExceeded: ({ rssBytes, limitBytes }) => {
          this.#killedBecause = `it used ${megabytes(rssBytes)} MB of memory, over the limit of ${megabytes(limitBytes)} MB`;
        },
      });
    }
  }

  /**
   * Launches Chromium (see `launchChromium`: in the host's command sandbox when it has one), with
   * its `file:` requests held to the URL policy before any page loads.
   */
  static async launch(options: ChromiumLaunchOptions): Promise<ChromiumInstance> {
    const { context, profileDir } = await launchChromium(options);
    const instance = new ChromiumInstance(context, findChromiumPid(profileDir), options);
    try {
      const browser = context.browser();
      if (!browser) throw new Error('Playwright gave no browser to guard file: URLs on');
      await guardFileUrls({ browser, policy: options.urlPolicy, logger: options.logger });
    } catch (error) {
      // Never a browser whose file: requests are not held to the policy.
      await instance.close();
      throw error;
    }
    await instance.#discoverPopups().catch((error: unknown) => {
      options.logger.warn({ error: String(error) }, 'popups are not tracked early');
    });
    return instance;
  }

  /** True until the browser exits or is closed. */
  get alive(): boolean {
    return !this.#closing && this.#deathReason === undefined;
  }

  /** Why the browser died, once it has (not set by {@link close}). */
  get deathReason(): string | undefined {
    return this.#deathReason;
  }

  /** Downloads reported since the launch. */
  get downloadsSeen(): number {
    return this.#downloadsSeen;
  }

  /**
   * Notes that a navigation started when {@link downloadsSeen} was `seen` turned into a download
   * (a `file:` or `data:` URL has no `Content-Disposition` to tell it by), so that
   * {@link settleDownloads} waits for its report.
   */
  expectDownloadSince(seen: number): void {
    this.#downloadsExpected = Math.max(this.#downloadsExpected, seen + 1);
  }

  /** Pages opened since the launch. */
  get pagesSeen(): number {
    return this.#pagesSeen;
  }

  /** Pages opened by other pages (popups) Chromium reported, possibly before Playwright has them. */
  get popupTargets(): number {
    return this.#popupTargets;
  }

  /** Open pages, oldest first. */
  pages(): Page[] {
    return this.context.pages().filter((page) => !page.isClosed());
  }

  /** The page actions go to: the active one, else the newest, else a new blank one. */
  async activePage(deadline: Deadline): Promise<Page> {
    if (this.#active && !this.#active.isClosed()) return this.#active;
    const newest = this.pages().at(-1);
    if (newest) {
      this.#active = newest;
      return newest;
    }
    const created = await deadline.race(this.context.newPage());
    if (!created.settled) throw new Error('Chromium did not open a new page in time');
    this.#active = created.value;
    return created.value;
  }

  /** Makes `page` the one actions go to. */
  setActive(page: Page): void {
    this.#active = page;
  }

  /** The downloads not handed out yet, handing them out. */
  takeDownloads(): Download[] {
    return this.#downloads.splice(0);
  }

  /**
   * Resolves once every attachment a page navigated to has been reported as a download
   * (Playwright reports some only after the click or `goto` that started them returned), or after
   * `timeoutMs`, after which the ones still missing are not waited for again.
   */
  async settleDownloads(timeoutMs: number): Promise<void> {
    await this.#waitUntil(() => this.#downloadsSeen >= this.#downloadsExpected, timeoutMs);
    this.#downloadsExpected = this.#downloadsSeen;
  }

  /** Resolves once more than `seen` pages opened, or after `timeoutMs`. */
  async waitForPage(seen: number, timeoutMs: number): Promise<void> {
    await this.#waitUntil(() => this.#pagesSeen > seen, timeoutMs);
  }

  /**
   * Closes the active page when its JavaScript stopped yielding since the last action (it would
   * hold up the next navigation on its site), so the action starts on a page that answers.
   */
  async closeActivePageIfStuck(deadline: Deadline): Promise<void> {
    const page = this.#active;
    if (!page || page.isClosed()) return;
    const probe = await deadline
      .race(page.evaluate('1'), PROBE_TIMEOUT_MS)
      .catch(() => ({ settled: true }) as const);
    if (probe.settled || deadline.aborted) return;
    this.#logger.warn({ url: page.url() }, 'the active page stopped responding; closing it');
    await this.closeStuckPage(page);
  }

  /**
   * Closes a page whose JavaScript does not yield, without its unload handlers. When even that
   * does not finish in time, the whole browser is killed (and the instance is dead).
   */
  async closeStuckPage(page: Page): Promise<void> {
    await Deadline.after(PAGE_CLOSE_TIMEOUT_MS)
      .race(page.close({ runBeforeUnload: false }))
      .catch(() => {});
    if (!page.isClosed()) this.kill('a page stopped responding and could not be closed');
  }

  /**
   * Kills the browser's process group with SIGKILL (or, with no pid known, has Playwright close
   * it, which kills it after its own timeout); the instance dies with `reason`.
   */
  kill(reason: string): void {
    this.#killedBecause ??= reason;
    if (this.pid === undefined) this.context.close().catch(() => {});
    else this.#killGroup();
  }

  /** Resident memory of the browser's processes, in bytes. */
  memoryBytes(): number | undefined {
    if (this.pid === undefined) return undefined;
    return processTree(readProcessTable(), this.pid).reduce(
      (sum, pid) => sum + readResidentBytes(pid),
      0,
    );
  }

  /** Closes the browser (killing it if it does not close in time) and whatever it left running. */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    this.#unwatch();
    // A rejection means it is closed already (the browser died).
    const closed = await Deadline.after(CLOSE_TIMEOUT_MS)
      .race(this.context.close())
      .catch(() => ({ settled: true }) as const);
    if (!closed.settled)
      this.#logger.warn({ pid: this.pid }, 'Chromium did not close in time; killing it');
    this.#killGroup();
  }

  #track(page: Page): void {
    page.on('download', (download) => {
      this.#downloads.push(download);
      this.#downloadsSeen++;
      this.#wake();
    });
    page.on('response', (response) => {
      const disposition = response.headers()['content-disposition'] ?? '';
      if (response.request().isNavigationRequest() && /^\s*attachment/i.test(disposition)) {
        this.#downloadsExpected++;
      }
    });
    // Answered so that no dialog blocks the page; leaving a page is always allowed.
    page.on('dialog', (dialog) => {
      (dialog.type() === 'beforeunload' ? dialog.accept() : dialog.dismiss()).catch(() => {});
    });
  }

  /**
   * Chromium announces a popup's target while the click that opens it is still running, well
   * before Playwright reports the page; counting those lets a click wait for its popup exactly
   * when there is one.
   */
  async #discoverPopups(): Promise<void> {
    const browser = this.context.browser();
    if (!browser) return;
    const cdp = await browser.newBrowserCDPSession();
    cdp.on('Target.targetCreated', ({ targetInfo }) => {
      if (targetInfo.type === 'page' && targetInfo.openerId !== undefined) this.#popupTargets++;
    });
    await cdp.send('Target.setDiscoverTargets', { discover: true });
  }

  async #waitUntil(done: () => boolean, timeoutMs: number): Promise<void> {
    if (done()) return;
    let wake: () => void = () => {};
    const reached = new Promise<void>((resolve) => {
      wake = () => {
        if (done()) resolve();
      };
      this.#waiters.add(wake);
    });
    await Deadline.after(timeoutMs).race(reached);
    this.#waiters.delete(wake);
  }

  #wake(): void {
    for (const wake of this.#waiters) wake();
  }

  #onClose(): void {
    this.#unwatch();
    if (this.#closing) return;
    this.#deathReason = this.#killedBecause
      ? `Chromium was killed because ${this.#killedBecause}`
      : 'Chromium exited unexpectedly';
    this.#logger.warn({ pid: this.pid }, this.#deathReason);
  }

  /**
   * SIGKILL to the browser's process group (Playwright starts it as a group leader), when any
   * process of that group is still there: a group id is not reused while it has members.
   */
  #killGroup(): void {
    const pid = this.pid;
    if (pid === undefined || !readProcessTable().some((entry) => entry.pgrp === pid)) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Exited meanwhile.
    }
  }
}

function megabytes(bytes: number): number {
  return Math.round(bytes / 1024 / 1024);
}
