import { existsSync, mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Page, WebSocket, WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSkipReason } from './browser-skip-reason.js';
import { openUiFixture, type UiFixture } from './open-ui-fixture.js';

const skip = browserSkipReason('web page: terminal');

describe.skipIf(skip !== undefined)('web page: terminal (real Chromium)', () => {
  let ui: UiFixture;
  let dir: string;

  beforeAll(async () => {
    ui = await openUiFixture();
    dir = realpathSync(ui.dir);
    mkdirSync(join(dir, 'sub'), { recursive: true });
  });

  afterAll(async () => {
    await ui?.close();
  });

  /**
   * A connected page showing the Terminal tab, once its shell shows the first prompt; `prepare`
   * runs before the terminal connects.
   */
  async function openTerminal(prepare?: (page: Page) => Promise<void>): Promise<Page> {
    const page = await ui.connectedPage();
    const problems = pageProblems(page);
    await prepare?.(page);
    await page.getByRole('tab', { name: 'Terminal' }).click();
    const region = page.getByRole('region', { name: 'Terminal' });
    await region.waitFor();
    try {
      await expect.poll(() => screenRows(page)).toContain(`${basename(dir)} $`);
    } catch (error) {
      // What the page showed and met, so a failure under a loaded machine says where it stuck.
      const shown = await region
        .locator('.terminal-status')
        .textContent({ timeout: 1_000 })
        .catch(() => 'unreadable');
      const terminals = await page.locator('.xterm').count();
      (error as Error).message +=
        `\n(terminal status: ${JSON.stringify(shown)}; xterm elements: ${terminals}; ` +
        `page problems: ${problems.join(' | ') || 'none'})`;
      throw error;
    }
    return page;
  }

  /** The page's console errors, uncaught errors and failed requests, as they happen. */
  function pageProblems(page: Page): string[] {
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`error: ${error.message}`));
    page.on('requestfailed', (request) =>
      problems.push(`failed: ${request.url()} (${request.failure()?.errorText})`),
    );
    return problems;
  }

  /** The rows of the terminal's screen, as plain text. */
  async function screenRows(page: Page): Promise<string[]> {
    const rows = await page.locator('.xterm-rows > div').allTextContents();
    return rows.map((row) => row.replaceAll('\u00a0', ' ').trimEnd());
  }

  /** Types `line` and Enter into the terminal. */
  async function run(page: Page, line: string): Promise<void> {
    await page.getByRole('textbox', { name: 'Terminal input' }).focus();
    await page.keyboard.type(line);
    await page.keyboard.press('Enter');
  }

  async function waitForRow(page: Page, row: string, count = 1): Promise<void> {
    await expect
      .poll(async () => (await screenRows(page)).filter((text) => text === row).length, {
        timeout: 10_000,
      })
      .toBe(count);
  }

  it('loads xterm when first shown, runs a line and shows its output', async () => {
    const requested: string[] = [];
    const page = await openTerminal(async (connected) => {
      // xterm is loaded only when the terminal is first shown.
      const loaded = await connected.evaluate(() =>
        performance.getEntriesByType('resource').map((entry) => entry.name),
      );
      expect(loaded.filter((url) => url.includes('terminal-xterm'))).toEqual([]);
      connected.on('request', (request) => requested.push(request.url()));
    });
    expect(requested.some((url) => /\/assets\/terminal-xterm-[\w-]+\.js$/.test(url))).toBe(true);
    await run(page, 'echo hello-from-terminal');
    await waitForRow(page, 'hello-from-terminal');
    const region = page.getByRole('region', { name: 'Terminal' });
    expect(await region.getByRole('status').textContent()).toContain('Line mode');
    await page.close();
  });

  it('keeps the directory and variables between lines (one long-lived shell)', async () => {
    const page = await openTerminal();
    await run(page, 'cd sub && pwd');
    await waitForRow(page, join(dir, 'sub'));
    await run(page, 'KEPT=yes; pwd');
    await waitForRow(page, join(dir, 'sub'), 2);
    await run(page, 'echo "kept=$KEPT"');
    await waitForRow(page, 'kept=yes');
    expect(await screenRows(page)).toContain('sub $');
    await page.close();
  });

  it('runs commands that write files in the working directory', async () => {
    const page = await openTerminal();
    await run(page, 'echo written > made-by-terminal.txt');
    await expect.poll(() => existsSync(join(dir, 'made-by-terminal.txt'))).toBe(true);
    expect(readFileSync(join(dir, 'made-by-terminal.txt'), 'utf8')).toBe('written\n');
    await page.close();
  });

  it('stops a running line with Ctrl+C and shows its status', async () => {
    const page = await openTerminal();
    await run(page, 'echo sleeping; sleep 30; echo not-reached');
    await waitForRow(page, 'sleeping');
    const input = page.getByRole('textbox', { name: 'Terminal input' });
    await input.press('Control+c');
    // The shell survives the interrupt: the next line runs well before the sleep would end.
    await run(page, 'echo after-interrupt');
    await waitForRow(page, 'after-interrupt');
    // The interrupt ended the rest of the line too.
    expect(await screenRows(page)).not.toContain('not-reached');
    expect((await screenRows(page)).some((row) => row.startsWith('[130]'))).toBe(true);
    await page.close();
  });

  it('starts a new shell in the last directory after the shell exits', async () => {
    const page = await openTerminal();
    await run(page, 'cd sub');
    await run(page, 'exit 3');
    await waitForRow(page, '[the shell exited with status 3]');
    await run(page, 'pwd');
    await waitForRow(page, join(dir, 'sub'));
    await page.close();
  });

  // 500 key presses, each a round trip to Chromium: slow on a loaded machine.
  it('erases a wrapped line with Backspace and walks the history with Up', async () => {
    const page = await openTerminal();
    await run(page, 'echo from-history');
    await waitForRow(page, 'from-history');
    const input = page.getByRole('textbox', { name: 'Terminal input' });
    await page.keyboard.type(`echo ${'x'.repeat(250)}`);
    await expect
      .poll(async () => (await screenRows(page)).filter((row) => /^x+$/.test(row)).length)
      .toBeGreaterThan(0);
    for (let index = 0; index < 250 + 'echo '.length; index++) await input.press('Backspace');
    await expect
      .poll(async () => (await screenRows(page)).some((row) => row.includes('xx')))
      .toBe(false);
    await input.press('ArrowUp');
    await input.press('Enter');
    await waitForRow(page, 'from-history', 2);
    await page.close();
  }, 120_000);

  it('renders ANSI colours', async () => {
    const page = await openTerminal();
    await run(page, "printf '\\033[31mred\\033[0m\\n'");
    await waitForRow(page, 'red');
    await page.locator('.xterm-rows span.xterm-fg-1', { hasText: /^red$/ }).waitFor();
    await page.close();
  });

  it('resumes after a dropped socket without losing or repeating output', async () => {
    const routes: WebSocketRoute[] = [];
    const terminal = await openTerminal(async (connected) => {
      await connected.routeWebSocket(/\/sockets\/exec$/, (socket) => {
        routes.push(socket);
        socket.connectToServer();
      });
    });
    await run(terminal, 'MARK=still-here; sleep 2; echo after-drop');
    await expect.poll(() => routes.length).toBe(1);
    await (routes[0] as WebSocketRoute).close({ code: 1011, reason: 'test drop' });
    await expect.poll(() => routes.length, { timeout: 10_000 }).toBe(2);
    await waitForRow(terminal, 'after-drop');
    await run(terminal, 'echo "$MARK"');
    await waitForRow(terminal, 'still-here');
    expect((await screenRows(terminal)).filter((row) => row === 'after-drop')).toHaveLength(1);
    await terminal.close();
  });

  it('closes its socket when it goes away', async () => {
    let socket: WebSocket | undefined;
    const page = await openTerminal(async (connected) => {
      connected.on('websocket', (opened) => {
        if (opened.url().endsWith('/sockets/exec')) socket = opened;
      });
    });
    await run(page, 'echo before-disconnect');
    await waitForRow(page, 'before-disconnect');
    expect(socket?.isClosed()).toBe(false);
    await page.getByRole('button', { name: 'Disconnect' }).click();
    await expect.poll(() => socket?.isClosed()).toBe(true);
    expect(await page.getByRole('region', { name: 'Terminal' }).count()).toBe(0);
    await page.close();
  });

  it('says so when the server refuses the socket', async () => {
    const page = await ui.connectedPage();
    await page.routeWebSocket(/\/sockets\/exec$/, (socket) => {
      socket.close({ code: 4001, reason: 'Authentication failed' });
    });
    await page.getByRole('tab', { name: 'Terminal' }).click();
    await expect
      .poll(() => page.getByRole('region', { name: 'Terminal' }).getByRole('alert').textContent())
      .toContain('the server refused the session key');
    await page.close();
  });
});
