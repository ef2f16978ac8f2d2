import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import type { Workspace } from '../workspace/workspace.js';
import type { ContractContext } from './contract-context.js';
import { rejectionOf } from './rejection-of.js';

/**
 * Bash function `is_alive PID`: true while the process exists and is not a zombie. Zombies count
 * as dead because a sandbox whose PID 1 does not reap leaves killed orphans as zombies.
 */
const IS_ALIVE = [
  'is_alive() {',
  '  kill -0 "$1" 2>/dev/null || return 1',
  '  if [ -r "/proc/$1/stat" ]; then',
  '    local s; read -r s < "/proc/$1/stat" 2>/dev/null || return 1',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash parameter expansion
  '    s=${s##*) }; s=${s%% *}; [ "$s" != Z ] && [ "$s" != X ]',
  '  elif command -v ps >/dev/null 2>&1; then',
  '    case "$(ps -o stat= -p "$1" 2>/dev/null)" in Z*|"") return 1 ;; esac',
  '  fi',
  '}',
].join('\n');

/** Quotes `value` for bash. */
function quote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** Asserts `error` is a `WorkspaceError` of `code` whose message mentions `mention`. */
function expectWorkspaceError(error: unknown, code: WorkspaceError['code'], mention?: string) {
  expect(
    WorkspaceError.isInstance(error, code),
    `expected WorkspaceError ${code}, got ${error}`,
  ).toBe(true);
  if (mention !== undefined) expect((error as Error).message).toContain(mention);
}

/** Polls `check` until it returns true or `timeoutMs` passes; returns the last answer. */
async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
}

/** Reads the pids in `pidFiles` (relative to `cwd`); fails unless every file holds one. */
async function readPids(workspace: Workspace, cwd: string, pidFiles: string[]): Promise<string[]> {
  const result = await workspace.executeCommand(`cat ${pidFiles.map(quote).join(' ')}`, { cwd });
  expect(result.exitCode, `pid files missing: ${result.stderr}`).toBe(0);
  const pids = result.stdout.split(/\s+/).filter(Boolean);
  expect(pids).toHaveLength(pidFiles.length);
  for (const pid of pids) expect(pid).toMatch(/^\d+$/);
  return pids;
}

/** The pids among `pids` that are still alive (not zombies) in the workspace. */
async function alivePids(workspace: Workspace, pids: string[]): Promise<string[]> {
  const script = `${IS_ALIVE}\nfor p in ${pids.join(' ')}; do if is_alive "$p"; then echo "$p"; fi; done`;
  const result = await workspace.executeCommand(script);
  expect(result.exitCode).toBe(0);
  return result.stdout.split(/\s+/).filter(Boolean);
}

/** Waits (briefly) until none of `pids` is alive; fails naming the survivors. */
async function expectAllDead(workspace: Workspace, pids: string[]): Promise<void> {
  let alive: string[] = [];
  await waitUntil(async () => {
    alive = await alivePids(workspace, pids);
    return alive.length === 0;
  }, 5_000);
  expect(alive, 'processes of the command tree survived').toEqual([]);
}

/** `1\n2\n…\ncount\n`, the output of `seq 1 count`. */
function seqOutput(count: number): string {
  const lines: string[] = [];
  for (let i = 1; i <= count; i++) lines.push(String(i));
  return `${lines.join('\n')}\n`;
}

/**
 * Command section of the workspace contract: exit codes and stream separation, cwd rules, env
 * merging, streaming callbacks, timeouts that kill the whole process tree, large and non-UTF-8
 * output, abort, argument validation and concurrency. Uses only the `Workspace` interface.
 */
export function describeCommandContract(context: ContractContext): void {
  describe('executeCommand', () => {
    it('separates stdout and stderr and returns a non-zero exit code as a result', async () => {
      const workspace = context.workspace();
      const result = await workspace.executeCommand('echo out; echo err >&2; exit 3');
      expect(result).toMatchObject({
        command: 'echo out; echo err >&2; exit 3',
        exitCode: 3,
        stdout: 'out\n',
        stderr: 'err\n',
        timeoutOccurred: false,
      });
      expect(result.durationMs).toBeGreaterThanOrEqual(0);
      const ok = await workspace.executeCommand('printf ok');
      expect(ok).toMatchObject({ exitCode: 0, stdout: 'ok', stderr: '', timeoutOccurred: false });
      expect((await workspace.executeCommand('false')).exitCode).toBe(1);
    }, 10_000);

    it('runs in workingDir by default and resolves relative and absolute cwd', async () => {
      const workspace = context.workspace();
      const dir = await context.scratchDir('cwd');
      const sub = `${dir}/sub dir`;
      expect((await workspace.executeCommand(`mkdir -p ${quote(sub)}`)).exitCode).toBe(0);
      // Compare physical paths: workingDir may sit behind a symlink (e.g. /tmp on macOS).
      const physical = async (target: string) =>
        (await workspace.executeCommand(`cd ${quote(target)} && pwd -P`)).stdout;
      const pwdIn = async (cwd?: string) =>
        (await workspace.executeCommand('pwd -P', cwd === undefined ? {} : { cwd })).stdout;

      expect(await pwdIn()).toBe(await physical(workspace.workingDir));
      expect(await pwdIn(path.posix.relative(workspace.workingDir, sub))).toBe(await physical(sub));
      expect(await pwdIn(sub)).toBe(await physical(sub));
      expect(await pwdIn('.')).toBe(await physical(workspace.workingDir));
    }, 10_000);

    it('rejects a missing cwd or a file as cwd with INVALID_CWD naming the path', async () => {
      const workspace = context.workspace();
      const dir = await context.scratchDir('bad-cwd');
      const missing = `${dir}/does-not-exist`;
      const error = await rejectionOf(workspace.executeCommand('true', { cwd: missing }));
      expectWorkspaceError(error, 'INVALID_CWD', 'does-not-exist');

      expect((await workspace.executeCommand('touch a-file', { cwd: dir })).exitCode).toBe(0);
      const fileError = await rejectionOf(
        workspace.executeCommand('true', { cwd: `${dir}/a-file` }),
      );
      expectWorkspaceError(fileError, 'INVALID_CWD', 'a-file');
    }, 10_000);

    it('merges env over the default environment without leaking into later commands', async () => {
      const workspace = context.workspace();
      const result = await workspace.executeCommand(
        'printf "%s|" "$AW_CONTRACT_VAR"; ls -d /; bash -c \'printf "%s" "$AW_CONTRACT_VAR"\'',
        { env: { AW_CONTRACT_VAR: 'hello world' } },
      );
      expect(result).toMatchObject({ exitCode: 0, stdout: 'hello world|/\nhello world' });
      // biome-ignore lint/suspicious/noTemplateCurlyInString: bash parameter expansion
      const later = await workspace.executeCommand('printf "%s" "${AW_CONTRACT_VAR-unset}"');
      expect(later.stdout).toBe('unset');
    }, 10_000);

    it('streams stdout and stderr to the callbacks before the command exits', async () => {
      const workspace = context.workspace();
      const dir = await context.scratchDir('stream');
      let out = '';
      let err = '';
      let settled = false;
      let markReady = () => {};
      const ready = new Promise<void>((resolve) => {
        markReady = resolve;
      });
      const check = () => {
        if (out.includes('ready') && err.includes('ready-err')) markReady();
      };
      // The command cannot finish until the test creates `go`, which it does only after the
      // callbacks delivered "ready": streaming is proved without timing assumptions.
      const running = workspace.executeCommand(
        'echo ready; echo ready-err >&2; while [ ! -e go ]; do sleep 0.05; done; echo done',
        {
          cwd: dir,
          timeoutMs: 15_000,
          onStdout: (chunk) => {
            out += chunk;
            check();
          },
          onStderr: (chunk) => {
            err += chunk;
            check();
          },
        },
      );
      const finished = running.then(
        () => {
          settled = true;
        },
        () => {
          settled = true;
        },
      );
      await Promise.race([
        ready,
        finished.then(() => {
          throw new Error('the command settled before its output reached the callbacks');
        }),
      ]);
      expect(settled).toBe(false);
      expect((await workspace.executeCommand('touch go', { cwd: dir })).exitCode).toBe(0);
      const result = await running;
      expect(result).toMatchObject({
        exitCode: 0,
        stdout: 'ready\ndone\n',
        stderr: 'ready-err\n',
        timeoutOccurred: false,
      });
      expect(out).toBe(result.stdout);
      expect(err).toBe(result.stderr);
    }, 20_000);

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
      const pid = result.stdout.trim();
      expect(pid).toMatch(/^\d+$/);
      try {
        // Background processes of a finished command (servers, watchers) are left running.
        expect(await alivePids(workspace, [pid])).toEqual([pid]);
      } finally {
        await workspace.executeCommand(`kill -9 ${pid}`);
      }
    }, 10_000);

    it('delivers large output complete and in order', async () => {
      const workspace = context.workspace();
      const result = await workspace.executeCommand('seq 1 800000; seq 1 100000 >&2', {
        timeoutMs: 20_000,
      });
      expect(result.exitCode).toBe(0);
      const expectedStdout = seqOutput(800_000);
      expect(expectedStdout.length).toBeGreaterThanOrEqual(5 * 1024 * 1024);
      expect(result.stdout.length).toBe(expectedStdout.length);
      expect(result.stdout === expectedStdout, 'stdout differs from `seq 1 800000`').toBe(true);
      expect(result.stderr === seqOutput(100_000), 'stderr differs from `seq 1 100000`').toBe(true);
    }, 30_000);

    it('decodes output as UTF-8 and replaces invalid bytes with U+FFFD', async () => {
      const workspace = context.workspace();
      const result = await workspace.executeCommand(
        "printf 'a\\xffb\\n'; printf 'h\\xc3\\xa9llo \\xe2\\x82\\xac\\n'; printf '%s\\n' 'héllo €'; printf '\\xfe' >&2",
      );
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe('a\uFFFDb\nhéllo €\nhéllo €\n');
      expect(result.stderr).toBe('\uFFFD');
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

    it('rejects invalid input with INVALID_ARGUMENT naming the field', async () => {
      const workspace = context.workspace();
      for (const command of ['', '   ']) {
        expectWorkspaceError(
          await rejectionOf(workspace.executeCommand(command)),
          'INVALID_ARGUMENT',
          'command',
        );
      }
      for (const timeoutMs of [0, -5, Number.NaN]) {
        expectWorkspaceError(
          await rejectionOf(workspace.executeCommand('true', { timeoutMs })),
          'INVALID_ARGUMENT',
          'timeoutMs',
        );
      }
    }, 10_000);

    it('keeps the output and exit codes of 20 concurrent commands apart', async () => {
      const workspace = context.workspace();
      const indexes = Array.from({ length: 20 }, (_, i) => i);
      const results = await Promise.all(
        indexes.map((i) =>
          workspace.executeCommand(
            `echo out-${i}; sleep 0.$((${i} % 3)); echo err-${i} >&2; exit $((${i} % 5))`,
            { timeoutMs: 15_000 },
          ),
        ),
      );
      for (const i of indexes) {
        expect(results[i]).toMatchObject({
          stdout: `out-${i}\n`,
          stderr: `err-${i}\n`,
          exitCode: i % 5,
          timeoutOccurred: false,
        });
      }
    }, 20_000);
  });
}
