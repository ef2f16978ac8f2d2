import { invalidArgument, WorkspaceError } from '@agent-workspace/core';
import { childEnvironment } from '@agent-workspace/core/internal';
import {
  browseInteractiveArgsSchema,
  browseUrlArgsSchema,
  type ObservationWire,
} from '@agent-workspace/protocol';
import { assertSandboxWritable } from '../plugin/assert-sandbox-writable.js';
import { importOptionalLibrary, optionalLibraryRequirement } from '../plugin/optional-library.js';
import type { PluginAction, PluginActionContext, RuntimePlugin } from '../plugin/runtime-plugin.js';
import { type BrowserRunRequest, BrowserSession } from './browser-session.js';
import { BrowserUrlPolicy } from './browser-url-policy.js';
import { chromiumProxy } from './chromium-proxy.js';
import { type BrowserAction, parseBrowserActions } from './parse-browser-actions.js';
import { resolveExecutable } from './resolve-executable.js';

const DEFAULT_VIEWPORT = { width: 1280, height: 720 };
const DEFAULT_MAX_CONTENT_CHARS = 64 * 1024;
/** Bound on launching Chromium in `initialize`. */
const LAUNCH_TIMEOUT_MS = 60_000;

/** Options of {@link createBrowserPlugin}. */
export interface BrowserPluginOptions {
  /**
   * The Chromium (or Chrome) binary. Default: `$AGENT_WORKSPACE_CHROMIUM` when set, else the first
   * of `/usr/bin/chromium`, `/usr/bin/chromium-browser`, `chromium`, `google-chrome` found.
   */
  executablePath?: string | undefined;
  /** Size of every page's viewport (and screenshot), in CSS pixels. Default 1280×720. */
  viewport?: { width: number; height: number } | undefined;
  /**
   * Most characters of the page's Markdown in an observation's `content` (the accessibility tree
   * text of `return_axtree` is capped the same, separately); past it a marker says how much was
   * left out. Default 65536 (64 Ki).
   */
  maxContentChars?: number | undefined;
}

/**
 * The `browser` runtime plugin: OpenHands' `browse` (visit a URL) and `browse_interactive`
 * (BrowserGym calls such as `click("12")`, `fill("7", "text")`, `goto(url)`, `scroll(0, 400)`,
 * `go_back()`, tab actions) on a headless Chromium driven by playwright-core. Chromium is the
 * system's own (never downloaded) and runs as a process of its own, registered with the host's
 * memory monitor and relaunched when it dies.
 *
 * Each action answers a `browse` observation: the page as Markdown, a PNG screenshot, the
 * accessibility tree (at most 5,000 nodes) whose `bid`s the element actions take, the open tabs,
 * and the files the page downloaded (saved into `<workingDir>/downloads/`). The action's timeout
 * bounds everything: a page that never finishes loading answers with `error: true` and what
 * loaded so far; a page whose JavaScript never yields is closed.
 *
 * URLs follow {@link BrowserUrlPolicy}: `http(s)`, `data:`, `about:blank`, and `file:` only inside
 * the working dir (symlinks resolved). A refused `url` or `goto(...)` is an `INVALID_ARGUMENT`
 * naming `args.url` or `args.browser_actions` (the agent-server answers 400); a `file:` request a
 * page makes by itself (a link, a redirect, `location = ...`, a frame, an image) outside the
 * policy fails in Chromium, and an observation never shows a frame outside it.
 *
 * Chromium gets the context's `environment` (and the proxy its `HTTPS_PROXY`/`HTTP_PROXY` name,
 * loopback direct) and, when the context has a `sandbox`, runs inside it without its own sandbox
 * (see `ChromiumInstance.launch`); its profile lives in the plugin's state directory, which must
 * then be bound read-write into the sandbox at the same path.
 *
 * @example
 * ```ts
 * await using host = PluginHost.start({ plugins: [createBrowserPlugin()], workingDir: '/workspace' });
 * await host.executeAction({ action: 'browse', args: { url: 'https://example.com' } });
 * ```
 */
export function createBrowserPlugin(options: BrowserPluginOptions = {}): RuntimePlugin {
  const candidates =
    options.executablePath === undefined
      ? [
          ...(process.env.AGENT_WORKSPACE_CHROMIUM ? [process.env.AGENT_WORKSPACE_CHROMIUM] : []),
          '/usr/bin/chromium',
          '/usr/bin/chromium-browser',
          'chromium',
          'google-chrome',
        ]
      : [options.executablePath];
  const maxContentChars = options.maxContentChars ?? DEFAULT_MAX_CONTENT_CHARS;
  if (!Number.isInteger(maxContentChars) || maxContentChars < 1) {
    throw invalidArgument(
      'maxContentChars',
      `must be a positive whole number, got ${maxContentChars}`,
    );
  }
  let session: BrowserSession | undefined;
  let urlPolicy: BrowserUrlPolicy | undefined;
  let closed = false;

  const notRunning = () =>
    new WorkspaceError({ code: 'NOT_SUPPORTED', message: 'the browser plugin is not running' });

  /** The URL to load for `url`, or `INVALID_ARGUMENT` naming `field` with the policy's reason. */
  const checkUrl = async (url: string, field: string, where = ''): Promise<string> => {
    if (!urlPolicy) throw notRunning();
    const decision = await urlPolicy.requested(url);
    if (!decision.allowed) throw invalidArgument(field, `${where}${decision.reason}`);
    return decision.url;
  };

  /** `actions` with each `goto` URL checked (and made canonical). */
  const checkGotos = (actions: BrowserAction[]): Promise<BrowserAction[]> =>
    Promise.all(
      actions.map(async (action) =>
        action.name === 'goto'
          ? {
              ...action,
              url: await checkUrl(
                action.url,
                'args.browser_actions',
                `line ${action.line}: goto(): url `,
              ),
            }
          : action,
      ),
    );

  const run = async (
    request: Omit<BrowserRunRequest, 'timeoutMs' | 'signal'>,
    context: PluginActionContext,
  ): Promise<ObservationWire> => {
    if (!session || closed) throw notRunning();
    return session.run({ ...request, timeoutMs: context.timeoutMs, signal: context.signal });
  };

  const browse: PluginAction<typeof browseUrlArgsSchema> = {
    args: browseUrlArgsSchema,
    run: async (args, context) => {
      const url = await checkUrl(args.url, 'args.url');
      const source = `goto(${JSON.stringify(args.url)})`;
      return run(
        {
          trigger: 'browse',
          actions: [{ name: 'goto', url, line: 1, source }],
          actionText: source,
          returnAxtree: args.return_axtree,
        },
        context,
      );
    },
  };

  const browseInteractive: PluginAction<typeof browseInteractiveArgsSchema> = {
    args: browseInteractiveArgsSchema,
    run: async (args, context) =>
      run(
        {
          trigger: 'browse_interactive',
          // Parsed and checked before anything runs: a bad call is a 400 naming the line.
          actions: await checkGotos(parseBrowserActions(args.browser_actions)),
          actionText: args.browser_actions,
          returnAxtree: args.return_axtree,
        },
        context,
      ),
  };

  return {
    name: 'browser',
    requirements: [
      {
        kind: 'binary',
        name: 'Chromium',
        candidates,
        install:
          'apt-get install -y chromium (or set AGENT_WORKSPACE_CHROMIUM to a Chromium or Chrome binary); the plugin uses the system browser and never downloads one',
      },
      optionalLibraryRequirement('playwright-core'),
      optionalLibraryRequirement('turndown'),
    ],
    capabilities: [],
    actions: { browse, browse_interactive: browseInteractive },

    async initialize(context) {
      const executablePath = resolveExecutable(candidates);
      if (executablePath === undefined) {
        throw new Error(
          `Chromium was not found (looked for ${candidates.join(', ')}); install it with: apt-get install -y chromium`,
        );
      }
      const env = context.environment ?? childEnvironment();
      const { proxy, warning } = chromiumProxy(env);
      if (warning !== undefined) context.logger.warn({}, warning);
      if (context.sandbox !== undefined) {
        await assertSandboxWritable({
          sandbox: context.sandbox,
          dir: context.stateDir,
          subject: "the browser plugin's state directory",
          signal: context.signal,
        });
      }
      urlPolicy = await BrowserUrlPolicy.create(context.workingDir);
      const { chromium } = await importOptionalLibrary(
        'playwright-core',
        () => import('playwright-core'),
      );
      session = new BrowserSession({
        chromium,
        executablePath,
        stateDir: context.stateDir,
        workingDir: context.workingDir,
        viewport: options.viewport ?? DEFAULT_VIEWPORT,
        maxContentChars,
        logger: context.logger,
        watchProcessTree: context.watchProcessTree,
        env,
        proxy,
        sandbox: context.sandbox,
        urlPolicy,
      });
      // Launched now, so a Chromium that cannot start fails the plugin's start, not an action.
      await session.start(LAUNCH_TIMEOUT_MS, context.signal);
      if (closed) await session.close();
    },

    async health() {
      if (!session) return { healthy: false, detail: 'not started' };
      return session.health();
    },

    async close() {
      closed = true;
      await session?.close();
    },
  };
}
