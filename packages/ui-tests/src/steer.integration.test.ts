import { existsSync } from 'node:fs';
import path from 'node:path';
import { AGENT_SERVER_ROUTES, conversationPath } from '@agent-workspace/protocol';
import { OpenAICompatibleDouble } from '@agent-workspace/sdk/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSkipReason } from './browser-skip-reason.js';
import { openUiFixture, type UiFixture } from './open-ui-fixture.js';

const skip = browserSkipReason('web page: steer');
const R = AGENT_SERVER_ROUTES;

interface WireEvent {
  readonly kind: string;
  readonly source?: string;
  readonly action?: { readonly command?: string } | null;
  readonly llm_message?: { readonly content: readonly { readonly text?: string }[] };
  readonly observation?: { readonly kind: string; readonly output?: string };
  readonly rejection_reason?: string;
  readonly key?: string;
  readonly value?: unknown;
}

interface ConversationInfo {
  readonly id: string;
  readonly execution_status: string;
  readonly agent: { readonly llm: Record<string, unknown>; readonly tools: { name: string }[] };
  readonly confirmation_policy?: { readonly kind: string };
}

/** A terminal call of a scripted model. */
const terminal = (command: string) => ({
  tool_calls: [{ name: 'terminal', arguments: { command } }],
});

/** The computed text colour of an element; runs in the page (this package has no DOM types). */
const colorOf = (element: unknown): string =>
  (
    globalThis as unknown as { getComputedStyle(element: unknown): { color: string } }
  ).getComputedStyle(element).color;

describe.skipIf(skip !== undefined)('web page: steer a conversation (real Chromium)', () => {
  let ui: UiFixture;

  beforeAll(async () => {
    ui = await openUiFixture();
  });

  afterAll(async () => {
    await ui?.close();
  });

  /** Starts a conversation with a scripted model; returns its id. */
  async function start(llm: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    const { id } = await ui.api<{ id: string }>('POST', R.conversations, {
      workspace: { kind: 'LocalWorkspace', working_dir: ui.dir },
      agent: { kind: 'Agent', llm, tools: [{ name: 'TerminalTool' }] },
      ...extra,
    });
    return id;
  }

  const events = async (id: string): Promise<WireEvent[]> =>
    (
      await ui.api<{ items: WireEvent[] }>(
        'GET',
        `${conversationPath(R.searchConversationEvents, id)}?limit=100`,
      )
    ).items;

  const status = async (id: string): Promise<string> =>
    (await ui.api<ConversationInfo>('GET', conversationPath(R.conversation, id))).execution_status;

  const messagesFrom = async (id: string, source: string): Promise<string[]> =>
    (await events(id))
      .filter((event) => event.kind === 'MessageEvent' && event.source === source)
      .map((event) => event.llm_message?.content.map((part) => part.text ?? '').join('') ?? '');

  /** A connected page showing conversation `id`. */
  async function openConversation(id: string): Promise<Page> {
    const page = await ui.connectedPage();
    await page.evaluate(`location.hash = ${JSON.stringify(`#/conversations/${id}`)}`);
    await page.getByRole('form', { name: 'Steer the conversation' }).waitFor();
    return page;
  }

  it('sends a message that the scripted model answers, and clears the box', async () => {
    const id = await start({ kind: 'ScriptedLLM', script: [{ text: 'Scripted hello back.' }] });
    const page = await openConversation(id);
    const bar = page.getByRole('form', { name: 'Steer the conversation' });
    const box = bar.getByLabel('Message');
    await box.fill('Please say hello');
    // Ctrl+Enter sends as "Send" does.
    await box.press('Control+Enter');
    await expect.poll(() => messagesFrom(id, 'user')).toEqual(['Please say hello']);
    await expect.poll(() => messagesFrom(id, 'agent')).toEqual(['Scripted hello back.']);
    await expect.poll(() => box.inputValue()).toBe('');
    expect(await bar.getByRole('alert').count()).toBe(0);

    // A failure keeps the text and shows the server's detail.
    await page.route('**/events', (route) =>
      route.fulfill({
        status: 409,
        contentType: 'application/json',
        body: JSON.stringify({ detail: 'Conversation is busy' }),
      }),
    );
    await box.fill('Second message');
    await bar.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => bar.getByRole('alert').textContent()).toContain('Conversation is busy');
    expect(await box.inputValue()).toBe('Second message');
    await page.close();
  });

  /** Runs `steps`; a failure also tells the conversation's status and its latest events. */
  async function withDiagnosis(id: string, steps: () => Promise<void>): Promise<void> {
    try {
      await steps();
    } catch (error) {
      const latest = (await events(id).catch(() => []))
        .slice(-20)
        .map((event) =>
          event.key === 'execution_status' ? `status ${String(event.value)}` : event.kind,
        );
      const now = await status(id).catch((failure: unknown) => `unreadable (${failure})`);
      (error as Error).message +=
        `\n(conversation ${id}: status ${now}; latest events ${latest.join(', ')})`;
      throw error;
    }
  }

  // Each wait has a limit of its own, the clicks too (Playwright's default, 30 s, was the test's
  // whole time): a wait that is stuck fails with its own message, well within the 60 s.
  it('pauses a running conversation and runs it again', { timeout: 60_000 }, async () => {
    const id = await start({
      kind: 'ScriptedLLM',
      script: [
        terminal('sleep 1 && echo one > one.txt'),
        terminal('sleep 1 && echo two > two.txt'),
        terminal('sleep 1 && echo three > three.txt'),
        terminal('sleep 1 && echo four > four.txt'),
        { text: 'All four done.' },
      ],
    });
    const page = await openConversation(id);
    const bar = page.getByRole('form', { name: 'Steer the conversation' });
    const pause = bar.getByRole('button', { name: 'Pause' });
    const run = bar.getByRole('button', { name: 'Run' });
    await withDiagnosis(id, async () => {
      // Idle: nothing to pause, a run to start.
      await expect.poll(() => pause.isDisabled()).toBe(true);
      await expect.poll(() => run.isEnabled()).toBe(true);

      await bar.getByLabel('Message').fill('Write the four files');
      await bar.getByRole('button', { name: 'Send' }).click({ timeout: 5_000 });
      await expect.poll(() => pause.isEnabled()).toBe(true);
      expect(await run.isDisabled()).toBe(true);
      await pause.click({ timeout: 5_000 });
      await expect.poll(() => status(id), { timeout: 10_000 }).toBe('paused');
      expect(existsSync(path.join(ui.dir, 'four.txt'))).toBe(false);
      expect((await events(id)).some((event) => event.kind === 'PauseEvent')).toBe(true);

      await expect.poll(() => run.isEnabled()).toBe(true);
      await run.click({ timeout: 5_000 });
      await expect.poll(() => status(id), { timeout: 15_000 }).toBe('finished');
      expect(existsSync(path.join(ui.dir, 'four.txt'))).toBe(true);
    });
    await page.close();
  });

  it('shows pending actions with their risk; Approve runs them, Reject does not', async () => {
    const id = await start(
      {
        kind: 'ScriptedLLM',
        script: [
          terminal('echo approved > approved.txt'),
          terminal('echo rejected > rejected.txt'),
          { text: 'Understood.' },
        ],
      },
      {
        confirmation_policy: { kind: 'AlwaysConfirm' },
        security_analyzer: { kind: 'PatternSecurityAnalyzer' },
        initial_message: {
          role: 'user',
          content: [{ type: 'text', text: 'Write two files' }],
          run: true,
        },
      },
    );
    await expect.poll(() => status(id)).toBe('waiting_for_confirmation');
    const page = await openConversation(id);
    const pending = page.getByRole('region', { name: 'Pending actions' });
    await pending.getByText('approved.txt').waitFor();
    expect(await pending.textContent()).toContain('terminal');
    const risk = pending.getByText('Risk: LOW');
    await risk.waitFor();
    expect(await risk.evaluate(colorOf)).toBe('rgb(30, 142, 62)');
    expect(existsSync(path.join(ui.dir, 'approved.txt'))).toBe(false);

    await pending.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => existsSync(path.join(ui.dir, 'approved.txt'))).toBe(true);
    await expect
      .poll(async () =>
        (await events(id)).some((event) => event.observation?.kind === 'TerminalObservation'),
      )
      .toBe(true);

    // The next step's action waits in turn; this one is rejected with a reason.
    await pending.getByText('rejected.txt').waitFor();
    await expect.poll(() => pending.getByRole('button', { name: 'Reject' }).isEnabled()).toBe(true);
    await pending.getByLabel('Reason').fill('Not that file');
    await pending.getByRole('button', { name: 'Reject' }).click();
    await expect
      .poll(async () =>
        (await events(id))
          .filter((event) => event.kind === 'UserRejectObservation')
          .map((event) => event.rejection_reason),
      )
      .toEqual(['Not that file']);
    await expect.poll(() => pending.count()).toBe(0);
    expect(existsSync(path.join(ui.dir, 'rejected.txt'))).toBe(false);
    await page.close();
  });

  it('starts a conversation from the page with an OpenAI-compatible model', async () => {
    await using double = await OpenAICompatibleDouble.start({ apiKey: 'sk-double-key' });
    double.reply({ kind: 'completion', text: 'Hello from the double.' });
    const page = await ui.connectedPage();
    await page.getByRole('button', { name: 'New conversation' }).click();
    const form = page.getByRole('form', { name: 'New conversation' });
    // The working directory defaults to the server's.
    await expect.poll(() => form.getByLabel('Working directory').inputValue()).toBe(ui.dir);
    await form.getByRole('checkbox', { name: 'TerminalTool' }).waitFor();
    expect(await form.getByRole('checkbox', { name: 'TerminalTool' }).isChecked()).toBe(true);
    await form.getByRole('checkbox', { name: 'TaskTrackerTool' }).uncheck();

    // A bad base URL: the server's 422 is shown against the field.
    await form.getByLabel('Model').fill('openai/gpt-4o-mini');
    await form.getByLabel('Base URL').fill('ftp://127.0.0.1/v1');
    await form.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => form.getByRole('alert').textContent()).toContain('Base URL');

    await form.getByLabel('API key').fill('sk-double-key');
    await form.getByLabel('Base URL').fill(double.baseUrl);
    await form.getByLabel('First message').fill('Say hello');
    await form.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => page.evaluate<string>('location.hash')).toMatch(/^#\/conversations\//);
    const id = decodeURIComponent(
      (await page.evaluate<string>('location.hash')).replace('#/conversations/', ''),
    );
    expect(await form.count()).toBe(0);

    const info = await ui.api<ConversationInfo>('GET', conversationPath(R.conversation, id));
    expect(info.agent.llm).toMatchObject({ model: 'openai/gpt-4o-mini', base_url: double.baseUrl });
    expect(JSON.stringify(info)).not.toContain('sk-double-key');
    expect(info.agent.tools.map((tool) => tool.name)).toEqual(['TerminalTool', 'FileEditorTool']);
    await expect.poll(() => messagesFrom(id, 'agent')).toEqual(['Hello from the double.']);
    expect(double.chatRequests).toHaveLength(1);
    expect(double.chatRequests[0]?.headers.authorization).toBe('Bearer sk-double-key');
    expect(JSON.stringify(double.chatRequests[0]?.body)).toContain('Say hello');
    // The key is never kept by the page.
    expect(
      await page.evaluate<string>('JSON.stringify({ ...sessionStorage, ...localStorage })'),
    ).not.toContain('sk-double-key');
    await page.close();
  });

  it('Cancel closes the form without starting anything', async () => {
    const before = await ui.api<{ items: unknown[] }>('GET', `${R.searchConversations}?limit=100`);
    const page = await ui.connectedPage();
    await page.getByRole('button', { name: 'New conversation' }).click();
    const form = page.getByRole('form', { name: 'New conversation' });
    await form.getByLabel('Model').fill('openai/gpt-4o-mini');
    await form.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => form.count()).toBe(0);
    const after = await ui.api<{ items: unknown[] }>('GET', `${R.searchConversations}?limit=100`);
    expect(after.items).toHaveLength(before.items.length);
    await page.close();
  });
});
