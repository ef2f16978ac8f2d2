import { describe, expect, it } from 'vitest';
import type { ContractContext } from './contract-context.js';
import { alivePids, expectAllDead, expectWorkspaceError, readPids } from './process-probes.js';
import { rejectionOf } from './rejection-of.js';

/**
 * Timeout and abort section of the workspace contract: a timeout returns the output so far and
 * kills the whole process tree (no survivor, even one holding the pipes or ignoring SIGTERM), a
 * finished command's background processes are left alone, and an aborted signal kills and
 * rejects with `ABORTED`. Uses only the `Workspace` interface.
 */
export function describeCommandTimeoutContract(context: ContractContext): void {
  describe('executeCommand timeouts and abort', () => {
    it('times out with timeoutOccurred, exit code -1 and the output printed before', async () => {
      const workspace = context.workspace();
      const result = await workspace.executeCommand(
        'echo before; echo before-err >&2; sleep 30; echo after',
        { timeoutMs: 1_000 },
      );
      expect(result).toMatchObject({
        exitCode: -1,
        stdout: 'before\n',
        stderr: 'before-err\n',
        timeoutOccurred: true,
        terminationReason: 'timeout',
      });
    }, 10_000);

    it('kills the whole process tree on timeout', async () => {
      const workspace = context.workspace();
      const dir = await context.scratchDir('tree-kill');
      const result = await workspace.executeCommand(
        [
          'echo $$ > shell.pid',
          'sleep 30 & echo $! > child.pid',
          '(sleep 30; true) & echo $! > subshell.pid',
          "bash -c 'sleep 30 & echo $! > grandchild.pid; wait' &",
          'while [ ! -s grandchild.pid ]; do sleep 0.02; done',
          'echo started',
          'wait',
        ].join('\n'),
        { cwd: dir, timeoutMs: 1_500 },
      );
      expect(result).toMatchObject({ timeoutOccurred: true, exitCode: -1, stdout: 'started\n' });
      const pids = await readPids(workspace, dir, [
        'shell.pid',
        'child.pid',
        'subshell.pid',
        'grandchild.pid',
      ]);
      await expectAllDead(workspace, pids);
    }, 15_000);

    it('does not hang on timeout when a grandchild that ignores SIGTERM holds the pipes', async () => {
      const workspace = context.workspace();
      const dir = await context.scratchDir('pipe-holder');
      const result = await workspace.executeCommand(
        "(trap '' TERM; exec sleep 30) & echo $! > holder.pid; echo started; sleep 30",
        { cwd: dir, timeoutMs: 1_000 },
      );
      expect(result).toMatchObject({ timeoutOccurred: true, exitCode: -1, stdout: 'started\n' });
      await expectAllDead(workspace, await readPids(workspace, dir, ['holder.pid']));
    }, 15_000);

    it('returns when bash exits although a background process holds the pipes', async () => {
      const workspace = context.workspace();
      // Without prompt return this would run into its 20 s timeout (and the 10 s test timeout).
      const result = await workspace.executeCommand('sleep 30 & echo $!', { timeoutMs: 20_000 });
      expect(result).toMatchObject({ exitCode: 0, timeoutOccurred: false });
      expect(result.terminationReason).toBeUndefined();
      const pid = result.stdout.trim();
      expect(pid).toMatch(/^\d+$/);
      try {
        // Background processes of a finished command (servers, watchers) are left running.
        expect(await alivePids(workspace, [pid])).toEqual([pid]);
      } finally {
        await workspace.executeCommand(`kill -9 ${pid}`);
      }
    }, 10_000);

    it('rejects with ABORTED and kills the command when the signal fires', async () => {
      const workspace = context.workspace();
      const dir = await context.scratchDir('abort');
      const controller = new AbortController();
      let out = '';
      const running = workspace.executeCommand(
        'echo $$ > shell.pid; sleep 30 & echo $! > child.pid; echo started; sleep 30',
        {
          cwd: dir,
          timeoutMs: 20_000,
          signal: controller.signal,
          onStdout: (chunk) => {
            out += chunk;
            if (out.includes('started')) controller.abort(new Error('stop'));
          },
        },
      );
      expectWorkspaceError(await rejectionOf(running), 'ABORTED');
      const pids = await readPids(workspace, dir, ['shell.pid', 'child.pid']);
      await expectAllDead(workspace, pids);
    }, 15_000);

    it('rejects an already-aborted signal with ABORTED without running the command', async () => {
      const workspace = context.workspace();
      const dir = await context.scratchDir('pre-abort');
      const error = await rejectionOf(
        workspace.executeCommand('touch ran', { cwd: dir, signal: AbortSignal.abort() }),
      );
      expectWorkspaceError(error, 'ABORTED');
      expect((await workspace.executeCommand('test -e ran', { cwd: dir })).exitCode).toBe(1);
    }, 10_000);
  });
}
