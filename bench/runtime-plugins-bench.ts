import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AxNodeWire, ObservationWire } from '@agent-workspace/protocol';
import { KernelSession } from '@agent-workspace/runtime-plugins';
import { chromium } from 'playwright-core';
import { startAgentServerProcess } from './agent-server-process.js';
import { type Comparison, compare } from './bench-harness.js';

const API_KEY = 'bench-session-key';
const CHROMIUM = process.env.AGENT_WORKSPACE_CHROMIUM ?? '/usr/bin/chromium';
const PYTHON = process.env.AGENT_WORKSPACE_PYTHON ?? '/usr/bin/python3';

const ARTICLE = `<!doctype html><html><head><title>Bench article</title></head><body>
<h1>Numbers</h1><p>${'Some text of an article. '.repeat(80)}</p>
<ul>${Array.from({ length: 40 }, (_, index) => `<li><a href="/a/${index}">link ${index}</a></li>`).join('')}</ul>
</body></html>`;
const BUTTON = `<!doctype html><html><head><title>Counter</title></head><body>
<button id="more" onclick="document.getElementById('n').textContent = Number(document.getElementById('n').textContent) + 1">More</button>
<p id="n">0</p></body></html>`;

/**
 * The runtime plugins through `/execute_action` on an agent-server process against the bare
 * libraries in this process, interleaved: a browser `goto` returning the page text (Playwright
 * `goto` + `textContent`), a `click` by element id (Playwright `click` + `textContent`), and an
 * IPython cell round trip (a direct execute request to a kernel of our own). The observations do
 * more than the baselines — a screenshot, the accessibility tree and Markdown of the page — so
 * the ratios price that too.
 */
export async function benchRuntimePlugins(): Promise<Comparison[]> {
  const workingDir = await mkdtemp(path.join(tmpdir(), 'bench-plugins-'));
  const pages = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(request.url === '/button' ? BUTTON : ARTICLE);
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    ...(process.getuid?.() === 0 ? { args: ['--no-sandbox'] } : {}),
  });
  const kernel = await KernelSession.start({
    pythonPath: PYTHON,
    cwd: workingDir,
    stateDir: await mkdtemp(path.join(tmpdir(), 'bench-kernel-')),
    startTimeoutMs: 60_000,
  });
  try {
    await using server = await startAgentServerProcess([
      '--working-dir',
      workingDir,
      '--session-api-key',
      API_KEY,
      '--plugin',
      'browser',
      '--plugin',
      'python',
    ]);
    const execute = async (action: Record<string, unknown>): Promise<ObservationWire> => {
      const response = await fetch(`${server.url}/execute_action`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-session-api-key': API_KEY },
        body: JSON.stringify({ action }),
      });
      if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
      return (await response.json()) as ObservationWire;
    };
    const page = await browser.newPage();
    const results: Comparison[] = [];
    results.push(
      await compare({
        scenario: 'browser: goto a loopback page and read its text',
        iterations: 30,
        baseline: {
          name: 'Playwright page.goto + textContent',
          run: async () => {
            await page.goto(`${base}/article`, { waitUntil: 'load' });
            await page.textContent('body');
          },
        },
        candidate: {
          name: '/execute_action browse (observation)',
          run: () => execute({ action: 'browse', args: { url: `${base}/article` } }),
        },
      }),
    );
    await page.goto(`${base}/button`);
    const opened = await execute({ action: 'browse', args: { url: `${base}/button` } });
    const nodes = (opened.extras.axtree_object as { nodes: AxNodeWire[] }).nodes;
    const bid = nodes.find((node) => node.role === 'button')?.bid;
    if (!bid) throw new Error('the button has no element id in the accessibility tree');
    results.push(
      await compare({
        scenario: 'browser: click a button by element id',
        iterations: 30,
        baseline: {
          name: 'Playwright page.click + textContent',
          run: async () => {
            await page.click('#more');
            await page.textContent('body');
          },
        },
        candidate: {
          name: `/execute_action browse_interactive click("${bid}")`,
          run: () =>
            execute({ action: 'browse_interactive', args: { browser_actions: `click("${bid}")` } }),
        },
      }),
    );
    await execute({ action: 'run_ipython', args: { code: 'x = 1' } });
    results.push(
      await compare({
        scenario: 'IPython cell round trip (x + 1)',
        iterations: 100,
        baseline: {
          name: 'KernelSession.execute (direct kernel request)',
          run: () => kernel.execute('x = 1\nx + 1', { timeoutMs: 30_000 }),
        },
        candidate: {
          name: '/execute_action run_ipython',
          run: () =>
            execute({
              action: 'run_ipython',
              args: { code: 'x = 1\nx + 1', include_extra: false },
            }),
        },
      }),
    );
    return results;
  } finally {
    await kernel.close();
    await browser.close();
    pages.close();
    await rm(workingDir, { recursive: true, force: true });
  }
}
