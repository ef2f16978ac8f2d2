import { readFileSync } from 'node:fs';
import { symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { WorkspaceError } from '@agent-workspace/core';
import {
  type BrowserOutputObservationWire,
  browserOutputObservationWireSchema,
  type ObservationWire,
} from '@agent-workspace/protocol';
import { expect, it, vi } from 'vitest';
import type { PluginHost } from '../../plugin/plugin-host.js';

/** What the URL policy cases run against: a host with the browser plugin on `workingDir`. */
export interface UrlPolicyFixture {
  host: PluginHost;
  /** Real path (no symlinks), holding the pages of {@link writePolicyPages}. */
  workingDir: string;
}

/** The first line of the host's /etc/passwd: no observation may ever hold it. */
export const PASSWD_LINE = readFileSync('/etc/passwd', 'utf8').split('\n')[0] as string;

/**
 * Writes the pages the cases browse into `workingDir`: one that links, jumps and refreshes out
 * to /etc/passwd, one that frames it, and symlinks inside that point out (a file, a directory)
 * and in.
 */
export async function writePolicyPages(workingDir: string): Promise<void> {
  const page = (title: string, body: string, head = '') =>
    `<!doctype html><html><head><title>${title}</title>${head}</head><body>${body}</body></html>`;
  await writeFile(
    path.join(workingDir, 'page.html'),
    page(
      'Inside',
      `<h1>Inside page</h1>
       <a href="file:///etc/passwd">Passwd link</a>
       <a href="passwd.html">Symlink out</a>
       <a href="refresh.html">Refresh out</a>
       <a href="view-source:file:///etc/passwd">Source link</a>
       <button onclick="location.href = 'file:///etc/passwd'">Jump out</button>`,
    ),
  );
  await writeFile(
    path.join(workingDir, 'refresh.html'),
    page(
      'Refresh',
      '<p>refreshing</p>',
      '<meta http-equiv="refresh" content="0; url=file:///etc/passwd">',
    ),
  );
  await writeFile(
    path.join(workingDir, 'framed.html'),
    page(
      'Framed',
      `<p>framing page</p><iframe src="file:///etc/passwd"></iframe>
       <iframe src="passwd.html"></iframe><img src="file:///etc/passwd" alt="passwd image">`,
    ),
  );
  await symlink('/etc/passwd', path.join(workingDir, 'passwd.html'));
  await symlink('/etc', path.join(workingDir, 'etc-link'));
  await symlink('page.html', path.join(workingDir, 'alias.html'));
}

/**
 * Registers the cases of the browser's URL policy (see `BrowserUrlPolicy`), the same with or
 * without a command sandbox: what is opened, what is refused as an argument, and that a page
 * inside the working dir cannot take the browser out of it; no observation holds /etc/passwd.
 */
export function describeUrlPolicyCases(fixture: () => UrlPolicyFixture): void {
  const observations: ObservationWire[] = [];

  async function execute(action: string, args: Record<string, unknown>) {
    const observation = await fixture().host.executeAction({ action, args, timeout: 30 });
    observations.push(observation);
    return browserOutputObservationWireSchema.parse(observation);
  }
  const browse = (url: string) => execute('browse', { url });
  const interact = (actions: string) => execute('browse_interactive', { browser_actions: actions });
  const fileUrl = (name: string) => pathToFileURL(path.join(fixture().workingDir, name)).href;

  function bid(observation: BrowserOutputObservationWire, name: string): string {
    const node = observation.extras.axtree_object.nodes.find(
      (candidate) => candidate.name === name && candidate.bid !== null,
    );
    if (!node?.bid) throw new Error(`no element '${name}' with a bid`);
    return node.bid;
  }

  function expectNothingOfPasswd(observation: BrowserOutputObservationWire): void {
    expect(JSON.stringify(observation)).not.toContain(PASSWD_LINE);
    expect(observation.extras.url).not.toBe('file:///etc/passwd');
  }

  async function refusal(action: string, args: Record<string, unknown>): Promise<WorkspaceError> {
    const error = await fixture()
      .host.executeAction({ action, args })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    if (!WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')) {
      throw new Error(`${JSON.stringify(args)} was not refused as an argument: ${String(error)}`);
    }
    return error;
  }

  it('renders a file: page inside the working dir and a data: URL', async () => {
    const inside = await browse(fileUrl('page.html'));
    expect(inside.extras).toMatchObject({ error: false, url: fileUrl('page.html') });
    expect(inside.title).toBe('Inside');
    expect(inside.content).toContain('# Inside page');
    const data = await browse('data:text/html,<title>Data</title><h1>From data</h1>');
    expect(data.extras.error).toBe(false);
    expect(data.content).toContain('# From data');
  });

  it('opens a symlink inside that points inside: the file it resolves to', async () => {
    const alias = await browse(fileUrl('alias.html'));
    expect(alias.title).toBe('Inside');
    expect(alias.extras.url).toBe(fileUrl('page.html'));
  });

  it('refuses local URLs outside the policy as bad arguments naming args.url', async () => {
    const { workingDir } = fixture();
    const refused: [string, RegExp][] = [
      ['file:///etc/passwd', /is refused: \/etc\/passwd is outside the working dir/],
      ['FILE:///etc/passwd', /is refused: \/etc\/passwd is outside the working dir/],
      [`file://${workingDir}/../../etc/passwd`, /is outside the working dir/],
      ['file://elsewhere/etc/passwd', /file: URLs on another host/],
      [fileUrl('passwd.html'), /passwd\.html, which resolves to \/etc\/passwd, is outside/],
      [`${fileUrl('etc-link')}/passwd`, /which resolves to \/etc\/passwd, is outside/],
      [fileUrl('missing.html'), /names a file that does not exist/],
      ['view-source:file:///etc/passwd', /view-source: URLs are not opened/],
      [`view-source:${fileUrl('page.html')}`, /view-source: URLs are not opened/],
      ['filesystem:file:///etc/passwd', /filesystem: URLs are not opened/],
      ['filesystem:http://127.0.0.1/temporary/x', /filesystem: URLs are not opened/],
      ['chrome://version', /chrome: URLs are not opened/],
      ['devtools://devtools/bundled/inspector.html', /devtools: URLs are not opened/],
      ['chrome-extension://abcdefghijklmnop/page.html', /chrome-extension: URLs are not opened/],
      ['javascript:document.title', /javascript: URLs are not opened/],
      ['about:version', /about: URLs are not opened/],
    ];
    for (const [url, reason] of refused) {
      const error = await refusal('browse', { url });
      expect(error.details.field, url).toBe('action.args.url');
      expect(error.message, url).toMatch(/^action\.args\.url /);
      expect(error.message, url).toMatch(reason);
    }
    const goto = await refusal('browse_interactive', {
      browser_actions: 'noop(0)\ngoto("view-source:file:///etc/passwd")',
    });
    expect(goto.details.field).toBe('action.args.browser_actions');
    expect(goto.message).toContain('line 2: goto(): url is refused: view-source: URLs');
  });

  it('keeps a page inside from taking the browser to /etc/passwd: link, symlink, location', async () => {
    for (const name of ['Passwd link', 'Symlink out', 'Jump out']) {
      const page = await browse(fileUrl('page.html'));
      const clicked = await interact(`click("${bid(page, name)}")`);
      expectNothingOfPasswd(clicked);
      expect(clicked.content, name).toContain('Access to the file was denied');
    }
  });

  it('keeps a meta refresh and a view-source: link inside the policy', async () => {
    const refresh = await browse(fileUrl('refresh.html'));
    expectNothingOfPasswd(refresh);
    // The refresh runs after the load: wait until Chromium refused it.
    await vi.waitFor(
      async () => {
        const later = await interact('noop(100)');
        expectNothingOfPasswd(later);
        expect(later.content).toContain('Access to the file was denied');
      },
      { timeout: 20_000, interval: 100 },
    );
    const page = await browse(fileUrl('page.html'));
    const source = await interact(`click("${bid(page, 'Source link')}")`);
    expectNothingOfPasswd(source);
    expect(source.extras.url).toBe(fileUrl('page.html'));
  });

  it('loads no frame or image of a file outside', async () => {
    const framed = await browse(fileUrl('framed.html'));
    // Frames outside the policy would have closed the page; Chromium refused them instead.
    expect(framed.extras.error).toBe(false);
    expect(framed.content).toContain('framing page');
    expectNothingOfPasswd(framed);
  });

  it('never showed /etc/passwd in any observation', () => {
    expect(PASSWD_LINE.length).toBeGreaterThan(0);
    expect(observations.length).toBeGreaterThan(5);
    for (const observation of observations) {
      expect(JSON.stringify(observation)).not.toContain(PASSWD_LINE);
    }
  });
}
