import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSkipReason } from './browser-skip-reason.js';
import { FIXTURE_KEY, openUiFixture, type UiFixture } from './open-ui-fixture.js';

const skip = browserSkipReason('web page: connect');

describe.skipIf(skip !== undefined)('web page: connect (real Chromium)', () => {
  let ui: UiFixture;

  beforeAll(async () => {
    ui = await openUiFixture();
    const { id } = await ui.api<{ id: string }>('POST', '/api/conversations', {
      workspace: { kind: 'LocalWorkspace', working_dir: ui.dir },
      agent: { kind: 'Agent', llm: { kind: 'ScriptedLLM', script: [] }, tools: [] },
    });
    await ui.api('PATCH', `/api/conversations/${id}`, { title: 'Fix the flaky test' });
  });

  afterAll(async () => {
    await ui?.close();
  });

  it('connects with the session key and lists the conversation', async () => {
    const page = await ui.browser.newPage();
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('websocket', (socket) => requested.push(socket.url()));
    await page.goto(`${ui.url}/`);
    await page.getByLabel('Session API key').fill(FIXTURE_KEY);
    await page.getByRole('button', { name: 'Connect' }).click();
    const list = page.getByRole('table', { name: 'Conversations' });
    await list.getByText('Fix the flaky test').waitFor();
    expect(await list.getByRole('row').count()).toBe(2);
    expect(await list.textContent()).toContain('idle');
    // The key is kept for this tab only, and never travels in a URL.
    expect(await page.evaluate('Object.values(sessionStorage)')).toEqual([FIXTURE_KEY]);
    expect(await page.evaluate('Object.keys(localStorage).length')).toBe(0);
    expect(requested.some((url) => url.includes(FIXTURE_KEY))).toBe(false);
    await page.close();
  });

  it('says so when the key is wrong', async () => {
    const page = await ui.browser.newPage();
    await page.goto(`${ui.url}/`);
    await page.getByLabel('Session API key').fill('not-the-key');
    await page.getByRole('button', { name: 'Connect' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('Wrong session API key');
    expect(await page.getByRole('table', { name: 'Conversations' }).count()).toBe(0);
    await page.close();
  });
});
