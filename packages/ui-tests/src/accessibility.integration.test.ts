import type { CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSkipReason } from './browser-skip-reason.js';
import { openUiFixture, type UiFixture } from './open-ui-fixture.js';

const skip = browserSkipReason('web page: accessibility');

/** Roles a person operates; each needs a name a screen reader can say. */
const CONTROL_ROLES = new Set([
  'button',
  'checkbox',
  'combobox',
  'link',
  'radio',
  'searchbox',
  'tab',
  'textbox',
  'treeitem',
]);

interface AxNode {
  ignored: boolean;
  role?: { value?: string };
  name?: { value?: string };
}

/** The controls of the page, as Chromium's accessibility tree has them, with their names. */
async function controlsOf(page: Page): Promise<{ role: string; name: string }[]> {
  const session: CDPSession = await page.context().newCDPSession(page);
  const { nodes } = (await session.send('Accessibility.getFullAXTree')) as { nodes: AxNode[] };
  await session.detach();
  return nodes
    .filter((node) => !node.ignored && CONTROL_ROLES.has(node.role?.value ?? ''))
    .map((node) => ({ role: node.role?.value ?? '', name: (node.name?.value ?? '').trim() }));
}

describe.skipIf(skip !== undefined)('web page: accessibility (real Chromium)', () => {
  let ui: UiFixture;
  let id: string;

  beforeAll(async () => {
    ui = await openUiFixture();
    ({ id } = await ui.api<{ id: string }>('POST', '/api/conversations', {
      workspace: { kind: 'LocalWorkspace', working_dir: ui.dir },
      agent: {
        kind: 'Agent',
        llm: {
          kind: 'ScriptedLLM',
          script: [
            { tool_calls: [{ name: 'terminal', arguments: { command: 'echo hi' } }] },
            { tool_calls: [{ name: 'terminal', arguments: { command: 'echo held' } }] },
          ],
        },
        tools: [{ name: 'TerminalTool' }],
      },
      confirmation_policy: { kind: 'AlwaysConfirm' },
      initial_message: { role: 'user', content: [{ type: 'text', text: 'go' }], run: true },
    }));
  });

  afterAll(async () => {
    await ui?.close();
  });

  it('connects by keyboard alone', async () => {
    const page = await ui.browser.newPage();
    await page.goto(`${ui.url}/`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.id')).toBe('session-key');
    await page.keyboard.type('ui-test-session-key');
    await page.keyboard.press('Enter');
    await page.getByRole('table', { name: 'Conversations' }).waitFor();
    await page.close();
  });

  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    it(`names every control and fits the screen at ${width} px`, async () => {
      const page = await ui.connectedPage();
      await page.setViewportSize({ width, height });
      await page.evaluate(`location.hash = ${JSON.stringify(`#/conversations/${id}`)}`);
      await page.getByRole('button', { name: 'Approve' }).waitFor();
      await page.getByRole('tab', { name: 'Files' }).click();
      await page.getByRole('tree', { name: 'Files' }).waitFor();
      await page.getByRole('button', { name: 'New conversation' }).click();
      await page.getByRole('form', { name: 'New conversation' }).waitFor();

      const controls = await controlsOf(page);
      expect(controls.length).toBeGreaterThan(15);
      expect(controls.filter((control) => control.name === '')).toEqual([]);
      for (const name of ['Message', 'Send', 'Pause', 'Run', 'Approve', 'Reject', 'Terminal']) {
        expect(controls.map((control) => control.name)).toContain(name);
      }
      // Nothing wider than the screen: no sideways scrolling of the page.
      const overflow = await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await page.close();
    });
  }
});
