import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { suiteSkipReason } from '@agent-workspace/core/testing';
import {
  type AxNodeWire,
  type BrowserOutputObservationWire,
  browserOutputObservationWireSchema,
  errorObservationWireSchema,
  type ObservationWire,
} from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ProcessTreeWatch } from '../memory/memory-monitor.js';
import { readProcessTable } from '../memory/read-process-table.js';
import { PluginHost } from '../plugin/plugin-host.js';
import type { RuntimePlugin } from '../plugin/runtime-plugin.js';
import { silentPluginLogger } from '../plugin/silent-plugin-logger.js';
import { createBrowserPlugin } from './browser-plugin.js';
import { resolveExecutable } from './resolve-executable.js';

const chromium = resolveExecutable([
  ...(process.env.AGENT_WORKSPACE_CHROMIUM ? [process.env.AGENT_WORKSPACE_CHROMIUM] : []),
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  'chromium',
  'google-chrome',
]);
const skip = suiteSkipReason(
  'browser plugin',
  chromium ? undefined : 'no Chromium here (apt-get install -y chromium)',
);

const REPORT = randomBytes(4096);

/** HTML pages of the test site: title and body by path. */
const PAGES: Record<string, (query: URLSearchParams) => [string, string]> = {
  '/': () => [
    'Home',
    `<h1>Home</h1><nav><a href="/second">Second page</a> <a href="/form">The form</a></nav>
     <p>Welcome <b>home</b>.</p>`,
  ],
  '/second': () => ['Second', '<h1>Second</h1><p>You made it.</p>'],
  '/form': () => [
    'Form',
    `<form action="/submit" method="get">
       <label for="name">Your name</label> <input id="name" name="name" required>
       <button type="submit">Send</button>
     </form>`,
  ],
  '/submit': (query) => [
    'Thanks',
    `<p>Hello, ${(query.get('name') ?? '').replace(/[<>&]/g, '')}!</p>`,
  ],
  '/downloads': () => ['Downloads', '<a href="/report">Get the report</a>'],
  '/spin': () => ['Spin', '<h1>Spinning</h1><script>for (;;) {}</script>'],
  '/freeze': () => ['Freeze', '<button onclick="for (;;) {}">Freeze</button>'],
  '/freeze-later': () => [
    'Later',
    // Late enough that even a loaded machine reads the page before it freezes.
    '<p>Freezing soon</p><script>setTimeout(() => { for (;;) {} }, 2_000);</script>',
  ],
  '/long': () => [
    'Long',
    `<p id="position" style="position: fixed; top: 0">at 0</p><div style="height: 5000px"></div>
     <script>addEventListener('scroll', () => {
       document.getElementById('position').textContent = 'at ' + Math.round(scrollY);
     });</script>`,
  ],
  '/popup': () => ['Popup', '<a href="/second" target="_blank">Open second</a>'],
  '/widgets': () => [
    'Widgets',
    `<h2>Settings</h2>
     <label><input type="checkbox" id="news"> Subscribe</label>
     <label for="colour">Colour</label>
     <select id="colour"><option>Red</option><option>Blue</option></select>
     <button aria-label="Close dialog">×</button>
     <input placeholder="Search" disabled>
     <img src="/nothing.png" alt="A cat">
     <p style="display: none">Hidden text</p>
     <div hidden><button>Hidden button</button></div>
     <ul id="items"><li>First</li><li>Second</li></ul>
     <button onclick="const li = document.createElement('li'); li.textContent = 'Added';
       document.getElementById('items').prepend(li)">Add item</button>`,
  ],
};

/** The test site: {@link PAGES}, an attachment and a page that never finishes. */
function site(request: http.IncomingMessage, response: http.ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const page = PAGES[url.pathname];
  if (page) {
    const [title, body] = page(url.searchParams);
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.end(
      `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`,
    );
  } else if (url.pathname === '/report') {
    response.setHeader('content-type', 'application/octet-stream');
    response.setHeader('content-disposition', 'attachment; filename="../report.bin"');
    response.end(REPORT);
  } else if (url.pathname === '/never-ends') {
    response.setHeader('content-type', 'text/html; charset=utf-8');
    response.write(
      '<!doctype html><html><head><title>Slow</title></head><body><h1>Partial heading</h1><p>first part',
    );
  } else {
    response.statusCode = 404;
    response.end('not found');
  }
}

describe.skipIf(skip !== undefined)('browser plugin (real Chromium)', () => {
  let server: http.Server;
  let base: string;
  let workingDir: string;
  let stateDir: string;
  let plugin: RuntimePlugin;
  const watches: ProcessTreeWatch[] = [];
  const unwatched: number[] = [];

  beforeAll(async () => {
    server = http.createServer(site);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    workingDir = await mkdtemp(path.join(os.tmpdir(), 'browser-plugin-work-'));
    stateDir = await mkdtemp(path.join(os.tmpdir(), 'browser-plugin-state-'));
    plugin = createBrowserPlugin({
      executablePath: chromium,
      viewport: { width: 800, height: 600 },
    });
    await plugin.initialize({
      workingDir,
      stateDir,
      logger: silentPluginLogger,
      signal: new AbortController().signal,
      watchProcessTree: (watch) => {
        watches.push(watch);
        return () => unwatched.push(watch.pid);
      },
      measureProcessTrees: () => {},
    });
  });

  afterAll(async () => {
    await plugin?.close();
    server?.closeAllConnections();
    server?.close();
    await rm(workingDir, { recursive: true, force: true });
    await rm(stateDir, { recursive: true, force: true });
  });

  async function browse(url: string, timeoutMs = 20_000, returnAxtree = false) {
    const args = { url, return_axtree: returnAxtree };
    const observation = await plugin.actions.browse?.run(
      args,
      { signal: new AbortController().signal, timeoutMs },
      { action: 'browse', args },
    );
    return browserOutputObservationWireSchema.parse(observation);
  }

  async function interactRaw(
    actions: string,
    timeoutMs = 20_000,
  ): Promise<ObservationWire | undefined> {
    const args = {
      browser_actions: actions,
      browsergym_send_msg_to_user: '',
      return_axtree: false,
    };
    return plugin.actions.browse_interactive?.run(
      args,
      { signal: new AbortController().signal, timeoutMs },
      { action: 'browse_interactive', args },
    );
  }

  async function interact(actions: string, timeoutMs = 20_000) {
    return browserOutputObservationWireSchema.parse(await interactRaw(actions, timeoutMs));
  }

  function node(observation: BrowserOutputObservationWire, role: string, name: string): AxNodeWire {
    const found = observation.extras.axtree_object.nodes.find(
      (candidate) => candidate.role === role && candidate.name === name,
    );
    if (!found)
      throw new Error(
        `no ${role} '${name}' in ${JSON.stringify(observation.extras.axtree_object.nodes)}`,
      );
    return found;
  }

  function bid(observation: BrowserOutputObservationWire, role: string, name: string): string {
    const found = node(observation, role, name).bid;
    if (found === null) throw new Error(`${role} '${name}' has no bid`);
    return found;
  }

  function currentPid(): number {
    const watch = watches.at(-1);
    if (!watch) throw new Error('Chromium was never registered with the memory monitor');
    return watch.pid;
  }

  /** Live (not zombie) processes whose command line names the plugin's state directory. */
  function chromiumProcesses(): number[] {
    return readProcessTable()
      .map(({ pid }) => pid)
      .filter((pid) => {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
          if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return false;
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(stateDir);
        } catch {
          return false;
        }
      });
  }

  it('registers the Chromium browser process with the memory monitor', async () => {
    expect(watches).toHaveLength(1);
    expect(watches[0]?.label).toBe('chromium');
    const cmdline = readFileSync(`/proc/${currentPid()}/cmdline`, 'utf8').split('\0');
    expect(cmdline).toContain(`--user-data-dir=${path.join(stateDir, 'chromium-profile')}`);
    const health = await plugin.health();
    expect(health).toMatchObject({ healthy: true });
    expect(health.memoryBytes).toBeGreaterThan(0);
  });

  it('browses a URL: Markdown, title, screenshot, accessibility tree with bids', async () => {
    const observation = await browse(`${base}/`, 20_000, true);
    expect(observation.title).toBe('Home');
    expect(observation.extras).toMatchObject({
      url: `${base}/`,
      trigger_by_action: 'browse',
      error: false,
      last_browser_action: `goto("${base}/")`,
      last_browser_action_error: '',
      open_pages_urls: [`${base}/`],
      active_page_index: 0,
    });
    expect(observation.content).toContain('# Home');
    expect(observation.content).toContain(`[Second page](${base}/second)`);
    expect(observation.content).toContain('Welcome **home**.');
    expect(observation.extras.screenshot).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    expect(node(observation, 'RootWebArea', 'Home')).toMatchObject({ depth: 0, bid: null });
    expect(node(observation, 'heading', 'Home')).toMatchObject({
      depth: 1,
      properties: { level: 1 },
    });
    expect(node(observation, 'link', 'Second page')).toMatchObject({
      depth: 2,
      properties: { url: `${base}/second` },
    });
    expect(observation.content).toContain(
      `[${bid(observation, 'link', 'Second page')}] link 'Second page'`,
    );
  });

  it('clicks a link by its bid and follows the navigation, then goes back', async () => {
    const home = await browse(`${base}/`);
    const clicked = await interact(`click("${bid(home, 'link', 'Second page')}")`);
    expect(clicked.extras).toMatchObject({
      url: `${base}/second`,
      error: false,
      trigger_by_action: 'browse_interactive',
    });
    expect(clicked.title).toBe('Second');
    expect(clicked.content).toContain('You made it.');
    const back = await interact('go_back()');
    expect(back.extras.url).toBe(`${base}/`);
    expect(back.title).toBe('Home');
  });

  it('keeps bids of the same elements across observations and numbers new ones higher', async () => {
    const first = await browse(`${base}/widgets`);
    const second = await interact('noop(0)');
    const withBids = (observation: BrowserOutputObservationWire) =>
      observation.extras.axtree_object.nodes
        .filter((candidate) => candidate.bid !== null)
        .map((candidate) => `${candidate.bid} ${candidate.role} ${candidate.name}`);
    expect(withBids(second)).toEqual(withBids(first));
    const listItems = first.extras.axtree_object.nodes.filter(
      (candidate) => candidate.role === 'listitem',
    );
    const added = await interact(`click("${bid(first, 'button', 'Add item')}")`);
    const nodes = added.extras.axtree_object.nodes;
    const items = nodes.filter((candidate) => candidate.role === 'listitem');
    // A list item's text is its StaticText child.
    expect(items.map((item) => nodes[nodes.indexOf(item) + 1])).toMatchObject(
      ['Added', 'First', 'Second'].map((name) => ({ role: 'StaticText', name, bid: null })),
    );
    expect(items.slice(1).map((item) => item.bid)).toEqual(listItems.map((item) => item.bid));
    const highest = Math.max(...withBids(first).map((line) => Number.parseInt(line, 10)));
    expect(Number(items[0]?.bid)).toBeGreaterThan(highest);
  });

  it('names, values and states elements and leaves hidden ones out', async () => {
    const page = await browse(`${base}/widgets`);
    expect(node(page, 'heading', 'Settings').properties).toEqual({ level: 2 });
    expect(node(page, 'checkbox', 'Subscribe').properties).toEqual({ checked: false });
    expect(node(page, 'combobox', 'Colour').value).toBe('Red');
    expect(node(page, 'button', 'Close dialog')).toBeDefined();
    expect(node(page, 'textbox', 'Search').properties).toEqual({ disabled: true });
    expect(node(page, 'img', 'A cat')).toBeDefined();
    const names = page.extras.axtree_object.nodes.map((candidate) => candidate.name);
    expect(names).not.toContain('Hidden text');
    expect(names).not.toContain('Hidden button');
    expect(page.content).not.toContain('Hidden');

    const changed = await interact(
      `click("${bid(page, 'checkbox', 'Subscribe')}")\nselect_option("${bid(page, 'combobox', 'Colour')}", "Blue")`,
    );
    expect(changed.extras.error).toBe(false);
    expect(node(changed, 'checkbox', 'Subscribe').properties).toEqual({
      checked: true,
      focused: true,
    });
    expect(node(changed, 'combobox', 'Colour')).toMatchObject({ value: 'Blue', properties: {} });
    expect(changed.extras.focused_element_bid).toBe(bid(page, 'checkbox', 'Subscribe'));
  });

  it('fills a form and submits it', async () => {
    const form = await browse(`${base}/form`);
    const field = node(form, 'textbox', 'Your name');
    expect(field.properties).toEqual({ required: true });
    const result = await interact(
      `fill("${field.bid}", "Ada Lovelace")\nclick("${bid(form, 'button', 'Send')}")`,
    );
    expect(result.extras.error).toBe(false);
    expect(result.extras.url).toBe(`${base}/submit?name=Ada+Lovelace`);
    expect(result.content).toContain('Hello, Ada Lovelace!');
  });

  it('saves downloads into workingDir/downloads, never overwriting', async () => {
    const page = await browse(`${base}/downloads`);
    const clicked = await interact(`click("${bid(page, 'link', 'Get the report')}")`);
    expect(clicked.extras.error).toBe(false);
    // Playwright already turns the suggested "../report.bin" into "_report.bin".
    const target = path.join(workingDir, 'downloads', '_report.bin');
    expect(clicked.downloads).toEqual([
      { path: target, url: `${base}/report`, size: REPORT.length },
    ]);
    expect((await readFile(target)).equals(REPORT)).toBe(true);

    const direct = await browse(`${base}/report`);
    expect(direct.extras.error).toBe(false);
    const second = path.join(workingDir, 'downloads', '_report (1).bin');
    expect(direct.downloads).toEqual([
      { path: second, url: `${base}/report`, size: REPORT.length },
    ]);
    expect((await readFile(second)).equals(REPORT)).toBe(true);
    expect((await readdir(path.join(workingDir, 'downloads'))).sort()).toEqual([
      '_report (1).bin',
      '_report.bin',
    ]);
  });

  it('answers a page that never finishes loading with an error and what loaded so far', async () => {
    const observation = await interact(`goto("${base}/never-ends")`, 6_000);
    expect(observation.extras.error).toBe(true);
    expect(observation.extras.last_browser_action_error).toMatch(
      /timed out after [\d.]+ s waiting for the page to load/,
    );
    expect(observation.extras.url).toBe(`${base}/never-ends`);
    expect(observation.content).toContain('Partial heading');
  });

  it('closes a page whose JavaScript never yields while loading, and goes on working', async () => {
    const observation = await browse(`${base}/spin`, 6_000);
    expect(observation.extras.error).toBe(true);
    expect(observation.extras.last_browser_action_error).toContain('waiting for the page to load');
    expect(observation.extras.last_browser_action_error).toContain(
      `the page at ${base}/spin stopped responding`,
    );
    expect(observation.extras.open_pages_urls).not.toContain(`${base}/spin`);
    const next = await browse(`${base}/second`);
    expect(next.extras.error).toBe(false);
    expect(next.title).toBe('Second');
  });

  it('closes a page that freezes on a click', async () => {
    const page = await browse(`${base}/freeze`);
    const frozen = await interact(`click("${bid(page, 'button', 'Freeze')}")`, 6_000);
    expect(frozen.extras.error).toBe(true);
    expect(frozen.extras.last_browser_action_error).toContain(
      `the page at ${base}/freeze stopped responding`,
    );
    const next = await browse(`${base}/second`);
    expect(next.title).toBe('Second');
  });

  it('closes a page that froze between actions before the next action runs', async () => {
    const page = await browse(`${base}/freeze-later`);
    expect(page.content).toContain('Freezing soon');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    // Same site: the navigation would wait for the frozen page's process.
    const next = await browse(`${base}/second`, 10_000);
    expect(next.extras.error).toBe(false);
    expect(next.title).toBe('Second');
    expect(next.extras.open_pages_urls).toEqual([`${base}/second`]);
  });

  it('scrolls the page', async () => {
    const before = await browse(`${base}/long`);
    expect(before.content).toContain('at 0');
    const after = await interact('scroll(0, 600)');
    expect(after.extras.error).toBe(false);
    expect(after.content).toContain('at 600');
  });

  it('makes a popup the active page and switches and closes tabs', async () => {
    const page = await browse(`${base}/popup`);
    const opened = await interact(`click("${bid(page, 'link', 'Open second')}")`);
    expect(opened.extras.open_pages_urls).toEqual([`${base}/popup`, `${base}/second`]);
    expect(opened.extras.active_page_index).toBe(1);
    expect(opened.title).toBe('Second');
    const first = await interact('tab_focus(0)');
    expect(first.extras).toMatchObject({ active_page_index: 0, url: `${base}/popup` });
    const closed = await interact('tab_close()');
    expect(closed.extras).toMatchObject({
      open_pages_urls: [`${base}/second`],
      active_page_index: 0,
    });
    const missing = await interact('tab_focus(5)');
    expect(missing.extras.error).toBe(true);
    expect(missing.extras.last_browser_action_error).toContain(
      'there is no tab 5; 1 tab(s) are open',
    );
  });

  it('reports an unknown bid as an error of the action, naming the line', async () => {
    await browse(`${base}/`);
    const observation = await interact('noop(0)\nclick("99999")\ngo_back()');
    expect(observation.extras.error).toBe(true);
    expect(observation.extras.last_browser_action_error).toBe(
      'line 2: click("99999"): no element with bid "99999" on the page; use a bid from the latest observation',
    );
    expect(observation.extras.url).toBe(`${base}/`);
  });

  it('refuses malformed actions before running anything', async () => {
    await browse(`${base}/`);
    const error = await interactRaw(`click("1")\ngoto("${base}/second",, 1)`).catch(
      (caught: unknown) => caught,
    );
    expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as Error).message).toBe(
      'args.browser_actions line 2: expected a value, found ","',
    );
    const unknown = await interactRaw('goto_url("x")').catch((caught: unknown) => caught);
    expect((unknown as Error).message).toContain('line 1: unknown function goto_url()');
    expect((await plugin.health()).detail).toContain('1 page(s) open');
    const still = await interact('noop(0)');
    expect(still.extras.url).toBe(`${base}/`);
  });

  it('answers an action in flight when Chromium dies, and the next action works', async () => {
    await browse(`${base}/`);
    const pid = currentPid();
    const inFlight = interactRaw('noop(15000)', 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // As the memory monitor does: kill the tree, then tell the watcher.
    process.kill(pid, 'SIGKILL');
    watches.at(-1)?.onExceeded({ rssBytes: 2048 * 1024 * 1024, limitBytes: 1024 * 1024 * 1024 });
    const observation = errorObservationWireSchema.parse(await inFlight);
    expect(observation.extras.error_id).toBe('BROWSER_RESTARTED');
    expect(observation.content).toContain(
      'During this action Chromium was killed because it used 2048 MB of memory, over the limit of 1024 MB; the action did not complete.',
    );
    expect(observation.content).toContain(
      'Chromium was restarted, without the pages that were open.',
    );
    expect(unwatched).toContain(pid);
    expect(currentPid()).not.toBe(pid);
    const next = await browse(`${base}/second`);
    expect(next.extras.error).toBe(false);
    expect(next.title).toBe('Second');
  });

  it('relaunches a Chromium killed between actions and is healthy again', async () => {
    const pid = currentPid();
    process.kill(pid, 'SIGKILL');
    await vi.waitFor(async () => expect(await plugin.health()).toMatchObject({ healthy: false }));
    expect((await plugin.health()).detail).toContain('Chromium exited unexpectedly');
    const next = await browse(`${base}/`);
    expect(next.extras.error).toBe(false);
    expect(next.title).toBe('Home');
    expect(currentPid()).not.toBe(pid);
    expect(await plugin.health()).toMatchObject({ healthy: true });
  });

  it('close() is idempotent and leaves no Chromium process', async () => {
    expect(chromiumProcesses().length).toBeGreaterThan(0);
    await Promise.all([plugin.close(), plugin.close()]);
    await plugin.close();
    expect(chromiumProcesses()).toEqual([]);
    expect(await plugin.health()).toMatchObject({ healthy: false });
    const after = await interactRaw('noop(0)').catch((caught: unknown) => caught);
    expect(WorkspaceError.isInstance(after, 'NOT_SUPPORTED')).toBe(true);
  });
});

describe.skipIf(skip !== undefined)('browser plugin in a plugin host', () => {
  let server: http.Server;
  let base: string;
  let workingDir: string;
  let stateDir: string;
  let host: PluginHost;

  beforeAll(async () => {
    server = http.createServer(site);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    workingDir = await mkdtemp(path.join(os.tmpdir(), 'browser-host-work-'));
    stateDir = await mkdtemp(path.join(os.tmpdir(), 'browser-host-state-'));
    host = PluginHost.start({ plugins: ['browser'], workingDir, stateDir });
  });

  afterAll(async () => {
    await host?.close();
    server?.closeAllConnections();
    server?.close();
    await rm(workingDir, { recursive: true, force: true });
    await rm(stateDir, { recursive: true, force: true });
  });

  it('loads by name, runs browse and browse_interactive and refuses bad actions as arguments', async () => {
    await host.whenReady('browser');
    const [status] = await host.status();
    expect(status).toMatchObject({
      name: 'browser',
      state: 'ready',
      healthy: true,
      actions: ['browse', 'browse_interactive'],
    });
    const home = browserOutputObservationWireSchema.parse(
      await host.executeAction({ action: 'browse', args: { url: `${base}/` } }),
    );
    expect(home.title).toBe('Home');
    const link = home.extras.axtree_object.nodes.find(
      (candidate) => candidate.name === 'Second page',
    );
    const second = browserOutputObservationWireSchema.parse(
      await host.executeAction({
        action: 'browse_interactive',
        args: { browser_actions: `click("${link?.bid}")`, thought: 'ignored' },
        timeout: 20,
      }),
    );
    expect(second.title).toBe('Second');
    const refused = await host
      .executeAction({ action: 'browse_interactive', args: { browser_actions: 'click(12' } })
      .catch((caught: unknown) => caught);
    expect(WorkspaceError.isInstance(refused, 'INVALID_ARGUMENT')).toBe(true);
    expect((refused as WorkspaceError).details.field).toMatch(/args\.browser_actions$/);
  });
});
