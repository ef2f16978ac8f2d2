import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserObservation } from '@agent-workspace/core';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestPluginHost } from '../test-support/test-plugin-host.js';
import { toolTempWorkspace } from '../test-support/tool-temp-workspace.js';
import { BrowserTool, browserArgsSchema } from './browser-tool.js';

const PAGES: Record<string, string> = {
  '/': `<!doctype html><html><head><title>Numbers</title></head><body>
    <h1>Quarterly numbers</h1>
    <table><tr><th>quarter</th><th>value</th></tr>
      <tr><td>Q1</td><td>17</td></tr><tr><td>Q2</td><td>25</td></tr></table>
    <form action="/search"><input name="q" aria-label="Search"><button type="submit">Go</button></form>
    <a href="/about">About us</a>
  </body></html>`,
  '/about': '<!doctype html><title>About</title><p>We count things.</p>',
};

// A loopback site: the table page, a search form and a second page.
const site = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const body =
    url.pathname === '/search'
      ? `<!doctype html><title>Results</title><p>You searched for ${url.searchParams.get('q')}</p>`
      : (PAGES[url.pathname] ?? '<!doctype html><title>Missing</title>');
  response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  response.end(body);
});
await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

const fixture = await startTestPluginHost('BrowserTool (headless Chromium)', ['browser']);
afterAll(async () => {
  await fixture.close();
  site.closeAllConnections();
  await new Promise((resolve) => site.close(resolve));
});

/** The element id of the node with `role` and `name` in a browser observation's tree. */
function bidOf(content: Record<string, unknown>, role: string, name: string): string {
  const observation = content.observation as BrowserObservation;
  if (observation.observation !== 'browse') throw new Error(observation.content);
  const node = observation.extras.axtree_object.nodes.find(
    (candidate) => candidate.role === role && candidate.name === name,
  );
  if (!node?.bid) throw new Error(`no ${role} '${name}' with a bid in the tree`);
  return node.bid;
}

describe('BrowserTool without a browser plugin', () => {
  it('is unavailable, with why, when nothing runs plugins', async () => {
    await using t = await toolTempWorkspace();
    const tool = new BrowserTool();
    expect(await tool.available(t.context)).toMatchObject({ available: false });
    const result = await tool.execute({ code: 'go_back()' }, t.context);
    expect(result).toMatchObject({ isError: true, content: { code: 'go_back()' } });
    expect(result.text).toContain('The browser is not available here');
  });

  it('takes OpenHands` CodeAct shape: one code string, described with its functions', () => {
    expect(browserArgsSchema.safeParse({ code: "goto('http://x')" }).success).toBe(true);
    expect(browserArgsSchema.safeParse({ code: '' }).success).toBe(false);
    const tool = new BrowserTool();
    expect(tool.name).toBe('browser');
    for (const name of ['goto(', 'click(', 'fill(', 'scroll(', 'go_back(', 'press(']) {
      expect(browserArgsSchema.shape.code.description).toContain(name);
    }
    expect(tool.description).toContain('bid');
  });
});

describe.skipIf(fixture.skip)('BrowserTool on headless Chromium', () => {
  it('is available where the executor runs the browser plugin', async () => {
    expect(await new BrowserTool().available(fixture.context)).toEqual({ available: true });
  });

  it('opens a page: URL, title, page text and tree for the model; no screenshot', async () => {
    const result = await new BrowserTool().execute({ code: `goto('${origin}/')` }, fixture.context);
    expect(result.isError).toBe(false);
    expect(result.text).toContain(`[Current URL: ${origin}/]`);
    expect(result.text).toContain('[Page title: Numbers]');
    expect(result.text).toContain('Quarterly numbers');
    expect(result.text).toMatch(/17[\s\S]*25/);
    expect(result.text).toMatch(/\[\w+\] link 'About us'/);
    expect(result.text).not.toContain('base64');
    const observation = result.content.observation as BrowserObservation;
    expect(observation).toMatchObject({ observation: 'browse', title: 'Numbers' });
  });

  it('fills a field and clicks by element id, then follows a link', async () => {
    const tool = new BrowserTool();
    const opened = await tool.execute({ code: `goto('${origin}/')` }, fixture.context);
    const search = bidOf(opened.content, 'textbox', 'Search');
    const go = bidOf(opened.content, 'button', 'Go');
    const searched = await tool.execute(
      { code: `fill('${search}', 'apples')\nclick('${go}')` },
      fixture.context,
    );
    expect(searched.isError).toBe(false);
    expect(searched.text).toContain(`[Current URL: ${origin}/search?q=apples]`);
    expect(searched.text).toContain('You searched for apples');
    const back = await tool.execute({ code: 'go_back()' }, fixture.context);
    const about = await tool.execute(
      { code: `click('${bidOf(back.content, 'link', 'About us')}')` },
      fixture.context,
    );
    expect(about.text).toContain('[Page title: About]');
    expect(about.text).toContain('We count things.');
  });

  it('tells the model when its code does not parse or its action fails', async () => {
    const tool = new BrowserTool();
    const refused = await tool.execute({ code: 'teleport("mars")' }, fixture.context);
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('Nothing ran');
    expect(refused.text).toContain('teleport');
    await tool.execute({ code: `goto('${origin}/')` }, fixture.context);
    const failed = await tool.execute({ code: "click('no-such-bid')" }, fixture.context);
    expect(failed.isError).toBe(true);
    expect(failed.text).toContain('[Error when running the browser action');
  });
});
