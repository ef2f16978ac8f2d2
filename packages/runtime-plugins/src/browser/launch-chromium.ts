import path from 'node:path';
import type { BrowserContext } from 'playwright-core';
import type { ChromiumLaunchOptions } from './chromium-instance.js';
import { writeSandboxLauncher } from './write-sandbox-launcher.js';

/** A URL no request reaches: the discard port of loopback, which bypasses any proxy. */
const NOWHERE = 'http://127.0.0.1:9';

/**
 * Switches on top of Playwright's own: /dev/shm is small in containers, crash reports and smooth
 * scrolling (which would make `scroll` finish after the observation) are not wanted, and neither
 * are the browser's own connections — component updates, network time, sign-in, safe browsing,
 * sync, pings: only pages the agent opens reach the network, and an egress allow-list logs only
 * their refusals. Debian's Chromium 156 still asks Google's update, time and accounts hosts with
 * the `--disable-*` switches alone; their base URLs are pointed at {@link NOWHERE}.
 */
const CHROMIUM_ARGS = [
  '--disable-dev-shm-usage',
  '--disable-crash-reporter',
  '--disable-breakpad',
  '--disable-smooth-scrolling',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-domain-reliability',
  '--disable-client-side-phishing-detection',
  '--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter,Translate,AutofillServerCommunication,CertificateTransparencyComponentUpdater',
  '--no-first-run',
  '--no-pings',
  `--gaia-url=${NOWHERE}`,
  `--lso-url=${NOWHERE}`,
  `--google-base-url=${NOWHERE}`,
  `--component-updater=url-source=${NOWHERE}/`,
];

/**
 * Starts Chromium with Playwright: headless, a persistent profile and in-progress downloads in
 * the state dir, the host's environment (scrubbed of the server's keys, marked for the sweep) and
 * proxy, and {@link CHROMIUM_ARGS}.
 *
 * Trust boundary: Playwright spawns the process itself (it needs the debugging pipe on
 * descriptors 3 and 4), so with a command sandbox it is given, as its executable, a launcher
 * script that execs the sandbox's own launch (`CommandSandbox.wrap`) of Chromium: the browser
 * gets the sandbox's confinement and egress policy like every process the server starts. There
 * it runs without its own sandbox: it is uid 0 (root, or bwrap's user namespace mapping the
 * server's user to 0) with no capabilities and `no_new_privs`, so Chromium refuses to start
 * sandboxed as root, cannot map itself to another uid for its namespace sandbox, cannot use its
 * setuid helper, and `--no-zygote` needs `--no-sandbox`. Outside one, as root it runs without
 * its sandbox (Chromium refuses root otherwise); as another user sandboxed, falling back to no
 * sandbox (with a warning) where the sandbox cannot start, as in containers without user
 * namespaces.
 */
export async function launchChromium(
  options: ChromiumLaunchOptions,
): Promise<{ context: BrowserContext; profileDir: string }> {
  const profileDir = path.join(options.stateDir, 'chromium-profile');
  const executablePath =
    options.sandbox === undefined
      ? options.executablePath
      : await writeSandboxLauncher({
          sandbox: options.sandbox,
          executablePath: options.executablePath,
          cwd: options.sandbox.workingDir,
          dir: options.stateDir,
        });
  const launch = (chromiumSandbox: boolean) =>
    options.chromium.launchPersistentContext(profileDir, {
      executablePath,
      headless: true,
      chromiumSandbox,
      args: CHROMIUM_ARGS,
      env: { ...options.env },
      ...(options.proxy ? { proxy: options.proxy } : {}),
      acceptDownloads: true,
      downloadsPath: path.join(options.stateDir, 'downloads-in-progress'),
      viewport: options.viewport,
      timeout: options.timeoutMs,
      // The host handles signals; Playwright's handlers would exit the process on SIGINT.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  const ownSandbox = options.sandbox === undefined && process.getuid?.() !== 0;
  let context: BrowserContext;
  try {
    context = await launch(ownSandbox);
  } catch (error) {
    if (!ownSandbox) throw error;
    options.logger.warn(
      { error: String(error) },
      'Chromium did not start with its sandbox; starting it without',
    );
    context = await launch(false);
  }
  return { context, profileDir };
}
