/**
 * The README's screenshots: `pnpm --filter @agent-workspace/ui-tests screenshots`. A real
 * agent-server (its working directory a git repository) with two scripted conversations, one
 * finished (plan, write a test, fix the code, run the test in colour, finish) and one waiting for
 * the user to approve its action, shown in Debian's Chromium and saved as PNGs in
 * packages/ui/docs/. Build the page first (`pnpm --filter @agent-workspace/ui build`).
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { AGENT_SERVER_ROUTES, conversationPath } from '@agent-workspace/protocol';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM_PATH, FIXTURE_KEY, openUiFixture, type UiFixture } from './open-ui-fixture.js';

const DOCS = fileURLToPath(new URL('../../ui/docs/', import.meta.url));
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

const GREET = `/** A greeting for \`name\`. */
function greet(name) {
  return 'Hello, ' + name;
}

module.exports = { greet };
`;

const GREET_TEST = `const assert = require('node:assert');
const { greet } = require('./greet.js');

const ok = (name) => console.log('\\x1b[32m✓\\x1b[0m ' + name);
assert.strictEqual(greet('Ada'), 'Hello, Ada!');
ok('greets by name');
assert.strictEqual(greet(''), 'Hello, stranger!');
ok('greets a stranger');
console.log('\\n\\x1b[1;32m2 passing\\x1b[0m');
`;

/** The finished conversation's script: plan, write the test, fix greet.js, run it, finish. */
function finishedScript(dir: string): object[] {
  return [
    {
      text: 'I will plan the change first.',
      tool_calls: [
        {
          name: 'task_tracker',
          arguments: {
            command: 'plan',
            task_list: [
              { title: 'Write a test for greet()', status: 'done' },
              { title: 'Handle an empty name and add the "!"', status: 'in_progress' },
              { title: 'Run the test', status: 'todo' },
            ],
          },
        },
      ],
    },
    {
      text: 'A test for both cases.',
      tool_calls: [
        {
          name: 'file_editor',
          arguments: { command: 'create', path: `${dir}/greet.test.js`, file_text: GREET_TEST },
        },
      ],
    },
    {
      text: 'Now the fix: a default name and the exclamation mark.',
      tool_calls: [
        {
          name: 'file_editor',
          arguments: {
            command: 'str_replace',
            path: `${dir}/greet.js`,
            old_str: "  return 'Hello, ' + name;",
            new_str: "  return 'Hello, ' + (name || 'stranger') + '!';",
          },
        },
      ],
    },
    {
      text: 'Running the test.',
      tool_calls: [{ name: 'terminal', arguments: { command: 'node greet.test.js' } }],
    },
    {
      tool_calls: [
        {
          name: 'finish',
          arguments: {
            message:
              'greet() now greets an empty name as "stranger" and ends with "!"; greet.test.js covers both and passes.',
          },
        },
      ],
    },
  ];
}

/** The pending conversation's script: one command that waits for approval. */
const PENDING_SCRIPT = [
  {
    text: 'The old build output is stale; I will remove it and rebuild.',
    tool_calls: [{ name: 'terminal', arguments: { command: 'rm -rf dist && npm run build' } }],
  },
];

/** Makes `dir` a git repository with greet.js committed. */
async function prepareRepository(dir: string): Promise<void> {
  const run = promisify(execFile);
  await writeFile(path.join(dir, 'greet.js'), GREET);
  await writeFile(path.join(dir, 'README.md'), '# greet\n');
  for (const args of [
    ['init', '-q', '-b', 'main'],
    ['-c', 'user.email=demo@agent-workspace.invalid', '-c', 'user.name=demo', 'add', '.'],
    [
      '-c',
      'user.email=demo@agent-workspace.invalid',
      '-c',
      'user.name=demo',
      'commit',
      '-qm',
      'greet',
    ],
  ]) {
    await run('git', args, { cwd: dir });
  }
}

/** Starts a conversation with `script` and `task`, titled `title`; resolves with its id. */
async function startConversation(
  ui: UiFixture,
  options: { title: string; task: string; script: object[]; confirm: boolean },
): Promise<string> {
  const { id } = await ui.api<{ id: string }>('POST', AGENT_SERVER_ROUTES.conversations, {
    workspace: { kind: 'LocalWorkspace', working_dir: ui.dir },
    agent: {
      kind: 'Agent',
      llm: { kind: 'ScriptedLLM', script: options.script },
      tools: [{ name: 'TerminalTool' }, { name: 'FileEditorTool' }, { name: 'TaskTrackerTool' }],
    },
    confirmation_policy: { kind: options.confirm ? 'AlwaysConfirm' : 'NeverConfirm' },
    ...(options.confirm ? { security_analyzer: { kind: 'PatternSecurityAnalyzer' } } : {}),
    initial_message: { role: 'user', content: [{ type: 'text', text: options.task }], run: true },
  });
  await ui.api('PATCH', conversationPath(AGENT_SERVER_ROUTES.conversation, id), {
    title: options.title,
  });
  return id;
}

/** Resolves once conversation `id` has `status`. */
async function waitForStatus(ui: UiFixture, id: string, status: string): Promise<void> {
  for (let tries = 0; tries < 600; tries += 1) {
    const info = await ui.api<{ execution_status: string }>(
      'GET',
      conversationPath(AGENT_SERVER_ROUTES.conversation, id),
    );
    if (info.execution_status === status) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`conversation ${id} did not reach ${status}`);
}

/** A page of `viewport` size, connected with the fixture key, at conversation `id` if given. */
async function openPage(
  ui: UiFixture,
  viewport: { width: number; height: number },
  id?: string,
): Promise<Page> {
  const context = await ui.browser.newContext({ viewport, colorScheme: 'light' });
  const page = await context.newPage();
  await page.goto(`${ui.url}/${id ? `#/conversations/${id}` : ''}`);
  await page.getByLabel('Session API key').fill(FIXTURE_KEY);
  await page.getByRole('button', { name: 'Connect' }).click();
  if (id) await page.locator('[data-event-id]').first().waitFor();
  return page;
}

/** Saves the page as `docs/<name>.png` once fonts and animations have settled. */
async function save(page: Page, name: string): Promise<void> {
  await page.evaluate('document.fonts.ready');
  await page.screenshot({ path: path.join(DOCS, `${name}.png`), animations: 'disabled' });
  console.log(`wrote packages/ui/docs/${name}.png`);
}

/** Takes every screenshot with `ui`, whose conversations are `finished` and `pending`. */
async function takeScreenshots(
  ui: UiFixture,
  ids: { finished: string; pending: string },
): Promise<void> {
  const browser: Browser = ui.browser;
  const connect = await (await browser.newContext({ viewport: DESKTOP })).newPage();
  await connect.goto(`${ui.url}/`);
  await connect.getByLabel('Session API key').waitFor();
  await save(connect, 'connect');

  const desktop = await openPage(ui, DESKTOP, ids.finished);
  const log = desktop.getByRole('log', { name: 'Events' });
  await log.getByText('2 passing').first().waitFor();
  await log.getByText('greets an empty name as "stranger"').first().waitFor();
  await save(desktop, 'conversation');

  const workspace = desktop.getByRole('complementary', { name: 'Workspace' });
  await workspace.getByRole('tab', { name: 'Changes' }).click();
  await workspace
    .getByRole('list', { name: 'Git changes' })
    .getByRole('button', { name: /greet\.js$/ })
    .click();
  await workspace.getByText("(name || 'stranger')").first().waitFor();
  await save(desktop, 'workspace-diff');

  await workspace.getByRole('tab', { name: 'Terminal' }).click();
  const terminal = workspace.locator('.xterm');
  await terminal.waitFor();
  await terminal.click();
  await desktop.keyboard.type('git status --short && node greet.test.js\n');
  await workspace.getByText('2 passing').last().waitFor();
  await save(desktop, 'terminal');

  const pending = await openPage(ui, DESKTOP, ids.pending);
  await pending.getByRole('button', { name: 'Approve' }).waitFor();
  await save(pending, 'pending-action');

  const phone = await openPage(ui, PHONE, ids.finished);
  await phone.getByText('2 passing').first().waitFor();
  await save(phone, 'phone');
}

if (!CHROMIUM_PATH) {
  console.error('screenshots: no Chromium at /usr/bin/chromium (apt-get install -y chromium)');
  process.exit(1);
}
await mkdir(DOCS, { recursive: true });
await using ui = await openUiFixture();
await prepareRepository(ui.dir);
const finished = await startConversation(ui, {
  title: 'Greet a stranger',
  task: 'greet("") should say "Hello, stranger!" and every greeting should end with "!". Add a test.',
  script: finishedScript(ui.dir),
  confirm: false,
});
await waitForStatus(ui, finished, 'finished');
const pending = await startConversation(ui, {
  title: 'Rebuild from scratch',
  task: 'The build output looks stale: rebuild it from scratch.',
  script: PENDING_SCRIPT,
  confirm: true,
});
await waitForStatus(ui, pending, 'waiting_for_confirmation');
await takeScreenshots(ui, { finished, pending });
