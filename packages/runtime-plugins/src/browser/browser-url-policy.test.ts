import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserUrlPolicy } from './browser-url-policy.js';

describe('BrowserUrlPolicy', () => {
  let root: string;
  let workingDir: string;
  let outside: string;
  let policy: BrowserUrlPolicy;
  const url = (file: string) => pathToFileURL(file).href;

  beforeAll(async () => {
    root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'url-policy-')));
    workingDir = path.join(root, 'work');
    outside = path.join(root, 'outside');
    await mkdir(path.join(workingDir, 'sub dir'), { recursive: true });
    await mkdir(outside);
    await writeFile(path.join(workingDir, 'sub dir', 'page #1.html'), 'inside');
    await writeFile(path.join(outside, 'secret.html'), 'outside');
    await symlink(path.join(outside, 'secret.html'), path.join(workingDir, 'out.html'));
    await symlink('sub dir/page #1.html', path.join(workingDir, 'in.html'));
    await symlink(outside, path.join(workingDir, 'out-dir'));
    // The working dir as given is a symlink to the real one: the sandbox shows it at this path.
    await symlink(workingDir, path.join(root, 'link-to-work'));
    policy = await BrowserUrlPolicy.create(path.join(root, 'link-to-work'));
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('opens http(s), data: and about:blank URLs as parsed', async () => {
    expect(await policy.requested('HTTPS://Example.com/a b')).toEqual({
      allowed: true,
      url: 'https://example.com/a%20b',
    });
    expect(await policy.requested('data:text/html,<p>hi</p>')).toMatchObject({ allowed: true });
    expect(await policy.requested('about:blank')).toEqual({ allowed: true, url: 'about:blank' });
  });

  it('answers a file inside with its canonical URL under the working dir as given', async () => {
    const linked = path.join(root, 'link-to-work');
    expect(await policy.requested(`${url(path.join(workingDir, 'in.html'))}?q=1#top`)).toEqual({
      allowed: true,
      url: `${url(path.join(linked, 'sub dir', 'page #1.html'))}?q=1#top`,
    });
    expect(await policy.requested(`${url(path.join(linked, 'sub dir'))}/`)).toEqual({
      allowed: true,
      url: `${url(path.join(linked, 'sub dir'))}/`,
    });
  });

  it('refuses files outside, also through symlinks inside, and missing ones', async () => {
    expect(await policy.requested(url(path.join(outside, 'secret.html')))).toEqual({
      allowed: false,
      reason: `is refused: ${path.join(outside, 'secret.html')} is outside the working dir ${path.join(root, 'link-to-work')}`,
    });
    expect(await policy.requested(url(path.join(workingDir, 'out.html')))).toMatchObject({
      allowed: false,
      reason: expect.stringContaining(`which resolves to ${path.join(outside, 'secret.html')},`),
    });
    expect(
      await policy.requested(url(path.join(workingDir, 'out-dir', 'secret.html'))),
    ).toMatchObject({
      allowed: false,
    });
    expect(await policy.requested(`file://${workingDir}/%2e%2e/outside/secret.html`)).toMatchObject(
      {
        allowed: false,
      },
    );
    expect(await policy.requested(`file://${workingDir}/a%2Fb`)).toMatchObject({
      allowed: false,
      reason: 'is refused: its path holds an encoded slash or NUL',
    });
    expect(await policy.requested(url(path.join(workingDir, 'nope.html')))).toMatchObject({
      allowed: false,
      reason: expect.stringMatching(/^names a file that does not exist: /),
    });
    expect(await policy.requested('file://server/share/x')).toMatchObject({ allowed: false });
  });

  it('refuses every other scheme, view-source: of a file inside too', async () => {
    for (const refused of [
      'view-source:https://example.com/',
      `view-source:${url(path.join(workingDir, 'in.html'))}`,
      'filesystem:https://example.com/temporary/x',
      'chrome://settings',
      'chrome-untrusted://terminal/',
      'devtools://devtools/bundled/inspector.html',
      'chrome-extension://abc/page.html',
      'blob:https://example.com/0f1e',
      'javascript:void(0)',
      'about:settings',
      'ftp://example.com/',
    ]) {
      const decision = await policy.requested(refused);
      expect(decision.allowed, refused).toBe(false);
    }
    expect(await policy.requested('not a url')).toEqual({
      allowed: false,
      reason: 'is not an absolute URL',
    });
  });

  it('lets frames also show blobs, srcdoc and Chromium’s error page, and nothing else', async () => {
    for (const shown of [
      '',
      'blob:https://example.com/0f1e',
      'about:srcdoc',
      'chrome-error://chromewebdata/',
      url(path.join(workingDir, 'in.html')),
    ]) {
      expect(await policy.refusesFrame(shown), shown).toBeUndefined();
    }
    expect(await policy.refusesFrame('view-source:https://example.com/')).toBe(
      'view-source: URLs are not shown',
    );
    expect(await policy.refusesFrame(url(path.join(workingDir, 'out.html')))).toContain(
      'is outside the working dir',
    );
  });
});
