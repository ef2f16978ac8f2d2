/**
 * `demo --ui` as a person runs it: a real `node` process that starts its own agent-server, prints
 * the page's address and a new session key, runs the conversation inside that server and serves
 * until SIGINT.
 */
import { once } from 'node:events';
import { access } from 'node:fs/promises';
import { createServer } from 'node:net';
import { SESSION_API_KEY_HEADER } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import { DEMO_FINAL_MESSAGE } from './demo-task.js';
import { demo, expectOneLineFailure, startDemo } from './test-support/run-demo-cli.js';

const PAGE_LINE = /^web page: +(http:\/\/127\.0\.0\.1:(\d+))\/#\/conversations\/([0-9a-f-]{36})$/m;
const KEY_LINE = /^session API key: (\S+) {2}\(paste it into the page; shown only here\)$/m;
const WORKING_DIR = /working in (\/\S+agent-demo-\w+),/;

describe('the demo CLI with --ui', () => {
  it('serves the page, runs the conversation in its server, and closes cleanly on SIGINT', async () => {
    const run = startDemo('--ui');
    try {
      const [, base, , id] = await run.waitForOutput(PAGE_LINE);
      const [, key] = await run.waitForOutput(KEY_LINE);
      const [, workingDir] = await run.waitForOutput(WORKING_DIR);
      expect(key).toMatch(/^[\w-]{32}$/);
      expect(run.stdout().match(new RegExp(key as string, 'g'))).toHaveLength(1);

      const page = await fetch(`${base}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toContain('<script type="module"');

      const conversation = `${base}/api/conversations/${id}`;
      expect((await fetch(conversation)).status).toBe(401);
      const info = async (): Promise<{ execution_status?: unknown; title?: unknown }> => {
        const response = await fetch(conversation, {
          headers: { [SESSION_API_KEY_HEADER]: key as string },
        });
        return (await response.json()) as { execution_status?: unknown; title?: unknown };
      };
      await expect
        .poll(async () => (await info()).execution_status, { timeout: 30_000, interval: 100 })
        .toBe('finished');
      expect((await info()).title).toBe('Demo: write stats.js, test it, fix it');
      await run.waitForOutput(/^the page stays at http:\/\/127\.0\.0\.1:\d+\/ until Ctrl-C$/m);
      expect(run.stdout()).toContain(`answer:  ${DEMO_FINAL_MESSAGE}`);
      expect(run.stdout()).toContain('status:  finished (agent loop: the agent-server)');
      // The transcript is the same as without --ui.
      expect(run.stdout()).toContain('old_str="let i = 1;"');

      run.child.kill('SIGINT');
      const ended = await run.exited();
      expect(ended.code, ended.stderr).toBe(0);
      expect(ended.stderr).toBe('');
      expect(ended.stdout.trimEnd().endsWith('stopping the agent-server')).toBe(true);
      await expect(access(workingDir as string)).rejects.toThrow(/ENOENT/);
      await expect(fetch(`${base}/`)).rejects.toThrow();
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    }
  });

  it('names a port in use in one line and exits with 2', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const { port } = taken.address() as { port: number };
    try {
      expectOneLineFailure(
        await demo('--ui', '--port', String(port)),
        2,
        new RegExp(
          `^demo: --port ${port} is in use: pick another, or 0 for a free one \\(see --help\\)$`,
        ),
      );
    } finally {
      taken.close();
    }
  });

  it('refuses --ui on a docker workspace in one line, exit 2', async () => {
    expectOneLineFailure(
      await demo('--ui', '--workspace', 'docker'),
      2,
      /^demo: --ui runs its own agent-server on this machine: it works with --workspace local only, not docker \(see --help\)$/,
    );
  });
});
