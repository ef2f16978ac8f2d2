import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DIRECTORY_LISTING_ROUTE, SESSION_API_KEY_HEADER } from '@agent-workspace/protocol';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSkipReason } from './browser-skip-reason.js';
import { FIXTURE_KEY, openUiFixture, type UiFixture } from './open-ui-fixture.js';

const skip = browserSkipReason('web page: workspace panel');

/** Runs git in `dir` with a fixed identity. */
function git(dir: string, ...args: string[]): void {
  execFileSync(
    'git',
    ['-c', 'user.name=Fixture', '-c', 'user.email=fixture@example.invalid', ...args],
    { cwd: dir, stdio: 'ignore' },
  );
}

/** Lists `target` through the directory-listing route with the fixture key. */
function listDirectory(ui: UiFixture, target: string): Promise<Response> {
  const query = new URLSearchParams({ path: target });
  return fetch(`${ui.url}${DIRECTORY_LISTING_ROUTE}?${query}`, {
    headers: { [SESSION_API_KEY_HEADER]: FIXTURE_KEY },
  });
}

describe.skipIf(skip !== undefined)('web page: workspace panel (real Chromium)', () => {
  let ui: UiFixture;
  let page: Page;

  beforeAll(async () => {
    ui = await openUiFixture();
    const dir = ui.dir;
    mkdirSync(path.join(dir, 'src'));
    mkdirSync(path.join(dir, 'docs'));
    writeFileSync(path.join(dir, 'README.md'), '# Fixture project\n');
    writeFileSync(
      path.join(dir, 'src', 'main.ts'),
      'export const greeting = "hello";\nexport const answer = 41;\nexport const done = true;\n',
    );
    writeFileSync(path.join(dir, 'docs', 'guide.md'), 'Read me with the keyboard.\n');
    writeFileSync(path.join(dir, 'logo.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01, 0x02]));
    git(dir, 'init', '-q');
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', 'initial');
    writeFileSync(
      path.join(dir, 'src', 'main.ts'),
      'export const greeting = "hello";\nexport const answer = 42;\nexport const done = true;\n',
    );
    writeFileSync(path.join(dir, 'notes.txt'), 'a new file\n');
    mkdirSync(path.join(dir, 'many'));
    for (let index = 0; index < 205; index++) {
      writeFileSync(path.join(dir, 'many', `item-${String(index).padStart(3, '0')}.txt`), '');
    }
    writeFileSync(path.join(dir, 'big.txt'), `${'0123456789abcde\n'.repeat(96 * 1024)}`);
    page = await ui.connectedPage();
  });

  afterAll(async () => {
    await ui?.close();
  });

  const workspace = () => page.getByRole('complementary', { name: 'Workspace' });
  const tree = () => workspace().getByRole('tree', { name: 'Files' });
  const viewer = () => workspace().getByRole('region', { name: 'File viewer' });

  it('lists the working directory, directories first, and opens a file from an expanded directory', async () => {
    await expect
      .poll(() => workspace().getByRole('tab', { selected: true }).textContent())
      .toBe('Files');
    const items = tree().getByRole('treeitem');
    await tree().getByRole('treeitem', { name: 'README.md' }).waitFor();
    expect(
      await items.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('aria-label'))),
    ).toEqual(['docs', 'many', 'src', 'big.txt', 'logo.bin', 'notes.txt', 'README.md']);
    const src = tree().getByRole('treeitem', { name: 'src' });
    expect(await src.getAttribute('aria-expanded')).toBe('false');
    await src.click();
    expect(await src.getAttribute('aria-expanded')).toBe('true');
    const main = tree().getByRole('treeitem', { name: 'main.ts' });
    expect(await main.getAttribute('aria-level')).toBe('2');
    await main.click();
    await expect.poll(() => viewer().textContent()).toContain('export const answer = 42;');
    expect(await viewer().getByRole('heading').textContent()).toBe('src/main.ts');
    expect(await main.getAttribute('aria-selected')).toBe('true');
  });

  it('is driven by the keyboard: arrows open directories and move, Enter opens a file', async () => {
    const docs = tree().getByRole('treeitem', { name: 'docs' });
    await docs.focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => docs.getAttribute('aria-expanded')).toBe('true');
    const guide = tree().getByRole('treeitem', { name: 'guide.md' });
    await guide.waitFor();
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => guide.evaluate((node) => node === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => viewer().textContent()).toContain('Read me with the keyboard.');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => docs.evaluate((node) => node === document.activeElement)).toBe(true);
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => docs.getAttribute('aria-expanded')).toBe('false');
    expect(await tree().getByRole('treeitem', { name: 'guide.md' }).count()).toBe(0);
  });

  it('says a binary file is binary and shows only the first MiB of a large one', async () => {
    await tree().getByRole('treeitem', { name: 'logo.bin' }).click();
    await expect.poll(() => viewer().textContent()).toContain('Binary file');
    await tree().getByRole('treeitem', { name: 'big.txt' }).click();
    await expect
      .poll(() => viewer().textContent())
      .toContain('Showing the first 1.0 MiB of 1.5 MiB');
    const shown = await viewer().locator('pre').textContent();
    expect(shown?.length).toBe(1024 * 1024);
  });

  it('pages a long directory with Load more', async () => {
    const many = tree().getByRole('treeitem', { name: 'many' });
    await many.click();
    const more = tree().getByRole('treeitem', { name: 'Load more' });
    await more.waitFor();
    const children = tree().locator('[role="treeitem"][aria-level="2"][aria-label^="item-"]');
    expect(await children.count()).toBe(200);
    await more.click();
    await tree().getByRole('treeitem', { name: 'item-204.txt' }).waitFor();
    expect(await children.count()).toBe(205);
    expect(await more.count()).toBe(0);
    await many.click();
    expect(await children.count()).toBe(0);
  });

  it('shows a new file after Refresh', async () => {
    writeFileSync(path.join(ui.dir, 'later.txt'), 'written after the first listing\n');
    expect(await tree().getByRole('treeitem', { name: 'later.txt' }).count()).toBe(0);
    await workspace().getByRole('tabpanel').getByRole('button', { name: 'Refresh' }).click();
    await tree().getByRole('treeitem', { name: 'later.txt' }).waitFor();
  });

  it('lists the git changes and shows the diff of the modified file with its removed and added lines', async () => {
    const filesTab = workspace().getByRole('tab', { name: 'Files' });
    await filesTab.focus();
    await page.keyboard.press('ArrowRight');
    const changesTab = workspace().getByRole('tab', { name: 'Changes' });
    await expect.poll(() => changesTab.getAttribute('aria-selected')).toBe('true');
    const list = workspace().getByRole('list', { name: 'Git changes' });
    const modified = list.getByRole('button', { name: 'modified src/main.ts' });
    await modified.waitFor();
    await list.getByRole('button', { name: 'added notes.txt' }).waitFor();
    await modified.click();
    const diff = workspace().getByRole('region', { name: 'Diff of src/main.ts' });
    await expect
      .poll(() => diff.locator('.diff-del').allTextContents())
      .toEqual(['-export const answer = 41;\n']);
    expect(await diff.locator('.diff-add').allTextContents()).toEqual([
      '+export const answer = 42;\n',
    ]);
    expect(await diff.locator('.diff-hunk').count()).toBe(1);
    // The Files tab kept its state behind the tab.
    await filesTab.click();
    expect(await tree().getByRole('treeitem', { name: 'src' }).getAttribute('aria-expanded')).toBe(
      'true',
    );
  });
});

describe.skipIf(skip !== undefined)('web page: workspace panel, confined server', () => {
  let ui: UiFixture;

  beforeAll(async () => {
    ui = await openUiFixture({ confineToWorkingDir: true });
    writeFileSync(path.join(ui.dir, 'inside.txt'), 'inside\n');
  });

  afterAll(async () => {
    await ui?.close();
  });

  it('refuses to list /etc through the route, and lists the working directory', async () => {
    const refused = await listDirectory(ui, '/etc');
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('outside the working directory');
    const inside = await listDirectory(ui, ui.dir);
    expect(inside.status).toBe(200);
  });

  it('shows the files, and says the directory is not a git repository', async () => {
    const page = await ui.connectedPage();
    const workspace = page.getByRole('complementary', { name: 'Workspace' });
    await workspace
      .getByRole('tree', { name: 'Files' })
      .getByRole('treeitem', { name: 'inside.txt' })
      .waitFor();
    await workspace.getByRole('tab', { name: 'Changes' }).click();
    await workspace.getByText('This directory is not in a git repository.').waitFor();
    expect(await workspace.getByRole('list', { name: 'Git changes' }).count()).toBe(0);
    await page.close();
  });
});
