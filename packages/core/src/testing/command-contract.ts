import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellQuote } from '../internal/process/shell-quote.js';
import type { ContractContext } from './contract-context.js';
import { expectWorkspaceError } from './process-probes.js';
import { rejectionOf } from './rejection-of.js';

/** `1\n2\n…\ncount\n`, the output of `seq 1 count`. */
function seqOutput(count: number): string {
  const lines: string[] = [];
  for (let i = 1; i <= count; i++) lines.push(String(i));
  return `${lines.join('\n')}\n`;
}

/**
 * Command section of the workspace contract: exit codes and stream separation, cwd rules, env
 * merging, streaming callbacks, large and non-UTF-8 output, argument validation and concurrency.
 * Timeouts, tree kill and abort are in {@link describeCommandTimeoutContract}. Uses only the
 * `Workspace` interface.
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
      expect((await workspace.executeCommand(`mkdir -p ${shellQuote(sub)}`)).exitCode).toBe(0);
      // Compare physical paths: workingDir may sit behind a symlink (e.g. /tmp on macOS).
      const physical = async (target: string) =>
        (await workspace.executeCommand(`cd ${shellQuote(target)} && pwd -P`)).stdout;
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
