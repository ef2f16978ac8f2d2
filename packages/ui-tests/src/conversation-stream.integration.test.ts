/// <reference lib="dom" />
import type { Page, WebSocketRoute } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSkipReason } from './browser-skip-reason.js';
import { openUiFixture, type UiFixture } from './open-ui-fixture.js';

const skip = browserSkipReason('web page: conversation stream');

const TOOLS = [{ name: 'TerminalTool' }, { name: 'FileEditorTool' }, { name: 'TaskTrackerTool' }];

/** Waits until the page has painted what it rendered (not an assertion). */
async function painted(page: Page): Promise<void> {
  await page.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
  );
}

/** The `data-event-id`s rendered in the log now, duplicates included. */
function renderedIds(page: Page): Promise<string[]> {
  return page
    .getByRole('log', { name: 'Events' })
    .locator('[data-event-id]')
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-event-id') ?? ''));
}

/**
 * Scrolls the log from top to bottom, checking that no id is rendered twice at any moment, and
 * returns every id seen.
 */
async function everyRenderedId(page: Page): Promise<Set<string>> {
  const log = page.getByRole('log', { name: 'Events' });
  const seen = new Set<string>();
  await log.evaluate((element) => {
    element.scrollTop = 0;
  });
  for (;;) {
    await painted(page);
    const ids = await renderedIds(page);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) seen.add(id);
    const done = await log.evaluate((element) => {
      if (element.scrollTop + element.clientHeight >= element.scrollHeight - 1) return true;
      element.scrollTop += element.clientHeight / 2;
      return false;
    });
    if (done) return seen;
  }
}

interface EventPage {
  items: { id: string; kind: string }[];
  next_page_id: string | null;
}

describe.skipIf(skip !== undefined)('web page: conversation stream (real Chromium)', () => {
  let ui: UiFixture;

  /** Ids of the conversation's recorded events the list shows (state updates are not items). */
  async function shownEventIds(id: string): Promise<Set<string>> {
    const ids = new Set<string>();
    let pageId: string | null = null;
    do {
      const query: string = pageId ? `&page_id=${pageId}` : '';
      const page: EventPage = await ui.api<EventPage>(
        'GET',
        `/api/conversations/${id}/events/search?limit=100${query}`,
      );
      for (const event of page.items) {
        if (event.kind !== 'ConversationStateUpdateEvent') ids.add(event.id);
      }
      pageId = page.next_page_id;
    } while (pageId);
    return ids;
  }

  async function say(id: string, text: string, run: boolean): Promise<void> {
    await ui.api('POST', `/api/conversations/${id}/events`, {
      role: 'user',
      content: [{ type: 'text', text }],
      run,
    });
  }

  beforeAll(async () => {
    ui = await openUiFixture();
  });

  afterAll(async () => {
    await ui?.close();
  });

  it('streams a run live: messages, tool calls, colours, diffs, tasks, status; survives a drop', async () => {
    const path = `${ui.dir}/notes.txt`;
    const thought =
      'I will plan the work first, then write the notes file, edit it and run a command.';
    const { id } = await ui.api<{ id: string }>('POST', '/api/conversations', {
      workspace: { kind: 'LocalWorkspace', working_dir: ui.dir },
      title: 'Stream demo',
      agent: {
        kind: 'Agent',
        tools: TOOLS,
        llm: {
          kind: 'ScriptedLLM',
          stream: true,
          stream_chunk_chars: 4,
          stream_delay_ms: 25,
          script: [
            {
              reasoning: 'Thinking about a plan.',
              text: thought,
              tool_calls: [
                {
                  name: 'task_tracker',
                  arguments: {
                    command: 'plan',
                    task_list: [
                      { title: 'Write the notes', status: 'in_progress' },
                      { title: 'Check the output', status: 'todo' },
                    ],
                  },
                },
              ],
            },
            {
              tool_calls: [
                {
                  name: 'file_editor',
                  arguments: { command: 'create', path, file_text: 'alpha\nbeta\n' },
                },
              ],
            },
            {
              tool_calls: [
                {
                  name: 'file_editor',
                  arguments: { command: 'str_replace', path, old_str: 'beta', new_str: 'gamma' },
                },
              ],
            },
            {
              tool_calls: [
                {
                  name: 'terminal',
                  arguments: { command: "printf '\\033[31mred alert\\033[0m\\n'; seq 101 160" },
                },
              ],
            },
            { tool_calls: [{ name: 'no_such_tool', arguments: {} }] },
            { tool_calls: [{ name: 'finish', arguments: { message: 'All done.' } }] },
          ],
        },
      },
    });
    const page = await ui.connectedPage();
    // Tall enough for every item of this short conversation to be rendered at once.
    await page.setViewportSize({ width: 1400, height: 3200 });
    const sockets: { url: string; route: WebSocketRoute }[] = [];
    await page.routeWebSocket(
      (url) => url.pathname.startsWith('/sockets/events/'),
      (route) => {
        route.connectToServer();
        sockets.push({ url: route.url(), route });
      },
    );
    await page.getByRole('link', { name: 'Stream demo' }).click();
    const log = page.getByRole('log', { name: 'Events' });
    await log.waitFor();
    const header = page.getByRole('region', { name: 'Conversation' }).locator('header');
    await expect.poll(() => header.textContent()).toContain('idle');
    expect(await header.textContent()).toContain('scripted');
    expect(new URL(sockets[0]?.url ?? '').searchParams.get('resend_mode')).toBe('all');

    await say(id, 'Please do the work', true);
    await log.getByText('Please do the work').waitFor();
    // The answer's tokens show as they stream, then give way to the action.
    const typing = log.locator('.streaming');
    await typing.getByText('I will plan').waitFor();
    await typing.waitFor({ state: 'detached' });
    await expect.poll(() => header.textContent(), { timeout: 20_000 }).toContain('finished');

    // Each tool call with its name and arguments, and the agent's thought.
    const calls = log.locator('.action');
    await expect.poll(() => calls.count()).toBe(6);
    expect(await calls.locator('.tool-name').allTextContents()).toEqual([
      'task_tracker',
      'file_editor',
      'file_editor',
      'terminal',
      'no_such_tool',
      'finish',
    ]);
    const plan = calls.nth(0);
    expect(await plan.textContent()).toContain(thought);
    expect(await plan.textContent()).toContain('"title": "Write the notes"');
    expect(await calls.nth(2).textContent()).toContain('str_replace');
    expect(await calls.nth(2).textContent()).toContain('gamma');
    expect(await calls.nth(3).textContent()).toContain('printf');

    // Terminal output in colour, with its exit code.
    const red = log.locator('.terminal-output span', { hasText: 'red alert' });
    expect(await red.evaluate((span) => getComputedStyle(span).color)).toBe('rgb(187, 0, 0)');
    expect(await log.locator('.exit-code').first().textContent()).toBe('exit code 0');
    // Long output is cut until "Show all".
    const output = log.locator('.terminal-output');
    expect(await output.textContent()).toContain('\n128');
    expect(await output.textContent()).not.toContain('160');
    await log.getByRole('button', { name: 'Show all (61 lines)' }).click();
    await expect.poll(() => output.textContent()).toContain('\n160');

    // A failed tool call is marked as an error.
    const failure = log.locator('.is-error', { hasText: 'no_such_tool' });
    expect(await failure.count()).toBeGreaterThan(0);

    // File edits as diffs: the create adds every line; the edit removes one and adds one.
    const diffs = log.getByRole('figure', { name: `Diff of ${path}` });
    await expect.poll(() => diffs.count()).toBe(2);
    expect(await diffs.nth(0).locator('.diff-add').allTextContents()).toEqual([
      '+alpha\n',
      '+beta\n',
    ]);
    expect(await diffs.nth(0).locator('.diff-del').count()).toBe(0);
    expect(await diffs.nth(1).locator('.diff-del').allTextContents()).toEqual(['-beta\n']);
    expect(await diffs.nth(1).locator('.diff-add').allTextContents()).toEqual(['+gamma\n']);

    // The task list with each task's status.
    const tasks = page.getByRole('list', { name: 'Task list' });
    expect(await tasks.getByRole('listitem').allTextContents()).toEqual([
      'In progress Write the notes',
      'To do Check the output',
    ]);

    // Every recorded event shown once.
    expect(await everyRenderedId(page)).toEqual(await shownEventIds(id));

    // A message sent elsewhere shows up live.
    await say(id, 'Sent while watching', false);
    await log.getByText('Sent while watching').waitFor();

    // The server side drops the socket: the page reconnects from its last event, no duplicates.
    await sockets[0]?.route.close({ code: 1011, reason: 'test drop' });
    await expect.poll(() => sockets.length, { timeout: 10_000 }).toBe(2);
    const resumed = new URL(sockets[1]?.url ?? '').searchParams;
    expect(resumed.get('resend_mode')).toBe('since');
    expect(resumed.get('after_timestamp')).toMatch(/^\d{4}-\d\d-\d\dT/);
    await say(id, 'Sent after the drop', false);
    await log.getByText('Sent after the drop').waitFor();
    expect(await everyRenderedId(page)).toEqual(await shownEventIds(id));

    // A reload replays the history once.
    await page.reload();
    await log.getByText('Sent after the drop').waitFor();
    expect(await everyRenderedId(page)).toEqual(await shownEventIds(id));
    await page.close();
  }, 60_000);

  it('keeps the DOM small with 5,000 events and scrolls to the last', async () => {
    const { id } = await ui.api<{ id: string }>('POST', '/api/conversations', {
      workspace: { kind: 'LocalWorkspace', working_dir: ui.dir },
      title: 'Five thousand',
      agent: { kind: 'Agent', llm: { kind: 'ScriptedLLM', script: [] }, tools: [] },
    });
    await say(id, 'The very first message', false);
    for (let start = 1; start < 4999; start += 100) {
      const batch = [];
      for (let index = start; index < Math.min(start + 100, 4999); index++) {
        batch.push(say(id, `Message number ${index}`, false));
      }
      await Promise.all(batch);
    }
    await say(id, 'The very last message', false);

    const page = await ui.connectedPage();
    await page.getByRole('link', { name: 'Five thousand' }).click();
    const log = page.getByRole('log', { name: 'Events' });
    // It opens at the end, following it.
    await log.getByText('The very last message').waitFor({ timeout: 30_000 });
    expect((await renderedIds(page)).length).toBeLessThan(200);

    await log.evaluate((element) => {
      element.scrollTop = 0;
    });
    await log.getByText('The very first message').waitFor();
    expect(await log.getByText('The very last message').count()).toBe(0);
    expect((await renderedIds(page)).length).toBeLessThan(200);

    // Scrolling through stays small; the end shows the last message.
    for (let step = 0; step < 10; step++) {
      await log.evaluate((element) => {
        element.scrollTop += element.scrollHeight / 10;
      });
      await painted(page);
      const ids = await renderedIds(page);
      expect(ids.length).toBeLessThan(200);
      expect(new Set(ids).size).toBe(ids.length);
    }
    await log.evaluate((element) => {
      element.scrollTop = element.scrollHeight;
    });
    await log.getByText('The very last message').waitFor();

    // Scrolled up, a new event does not move the view.
    await log.evaluate((element) => {
      element.scrollTop = element.scrollHeight / 2;
    });
    await painted(page);
    const before = await renderedIds(page);
    const scroll = () =>
      log.evaluate((element) => ({ top: element.scrollTop, height: element.scrollHeight }));
    const { top, height } = await scroll();
    await say(id, 'One more at the end', false);
    await expect.poll(async () => (await scroll()).height).toBeGreaterThan(height);
    await painted(page);
    expect((await scroll()).top).toBe(top);
    expect(await renderedIds(page)).toEqual(before);
    await page.getByRole('button', { name: 'Jump to latest' }).click();
    await log.getByText('One more at the end').waitFor();
    await page.close();
  }, 180_000);

  it('says so when the conversation does not exist', async () => {
    const page = await ui.connectedPage();
    const opened: string[] = [];
    page.on('websocket', (socket) => {
      if (socket.url().includes('/sockets/events/')) opened.push(socket.url());
    });
    await page.evaluate(() => {
      location.hash = '#/conversations/00000000-0000-4000-8000-000000000000';
    });
    const alert = page.getByRole('region', { name: 'Conversation' }).getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('no such conversation');
    await page.reload();
    await expect.poll(() => alert.textContent()).toContain('no such conversation');
    expect(opened).toHaveLength(2);
    await page.close();
  });
});
