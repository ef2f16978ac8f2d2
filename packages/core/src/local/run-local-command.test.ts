import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { truncationMarker } from '../internal/output/output-capture.js';
import { rejectionOf } from '../testing/rejection-of.js';
import { runLocalCommand } from './run-local-command.js';
import type { RunLocalCommandOptions } from './run-local-command-options.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'run-local-command-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function run(command: string, options: Partial<RunLocalCommandOptions> = {}) {
  return runLocalCommand({
    command,
    cwd: root,
    timeoutMs: 10_000,
    env: {},
    maxOutputBytes: 1024 * 1024,
    ...options,
  });
}

/** True while `pid` exists and is not a zombie (orphans may linger unreaped as zombies). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return existsSync(`/proc/${pid}`) || process.platform !== 'linux';
  }
}

async function waitUntil(check: () => boolean, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

describe('runLocalCommand', () => {
  it('keeps the tail of each stream and marks the truncation', async () => {
    const result = await run('seq 1 10000; seq 1 20 >&2', { maxOutputBytes: 100 });
    let all = '';
    for (let i = 1; i <= 10000; i++) all += `${i}\n`;
    const dropped = Buffer.byteLength(all) - 100;
    expect(result.stdout).toBe(`${truncationMarker(dropped)}${all.slice(-100)}`);
    expect(result.stdout.startsWith(`[... ${dropped} bytes truncated ...]\n`)).toBe(true);
    // stderr (51 bytes) stays under the cap and is untouched.
    let err = '';
    for (let i = 1; i <= 20; i++) err += `${i}\n`;
    expect(result.stderr).toBe(err);
  });

  it('drops the rest of a character cut by the cap instead of emitting U+FFFD', async () => {
    // 'a€€' is 7 bytes; the last 5 start inside the first '€'.
    const result = await run("printf 'a\\xe2\\x82\\xac\\xe2\\x82\\xac'", { maxOutputBytes: 5 });
    expect(result.stdout).toBe(`${truncationMarker(4)}€`);
  });

  it('keeps only the marker with a cap of 0', async () => {
    const result = await run('printf abc', { maxOutputBytes: 0 });
    expect(result.stdout).toBe(truncationMarker(3));
    expect(result.stderr).toBe('');
  });

  it('decodes a multi-byte character split across chunks', async () => {
    const dir = await mkdtemp(path.join(root, 'split-'));
    const chunks: string[] = [];
    // The second half is written only after the first chunk reached the callback.
    const result = await run(
      "printf 'a\\xe2'; while [ ! -e go ]; do sleep 0.02; done; printf '\\x82\\xac'",
      {
        cwd: dir,
        onStdout: (chunk) => {
          chunks.push(chunk);
          if (chunk === 'a') void writeFile(path.join(dir, 'go'), '');
        },
      },
    );
    expect(chunks).toEqual(['a', '€']);
    expect(result.stdout).toBe('a€');
  });

  it('flushes an incomplete trailing character as U+FFFD and keeps a BOM', async () => {
    const chunks: string[] = [];
    const result = await run("printf '\\xef\\xbb\\xbfx\\xe2'", {
      onStdout: (chunk) => chunks.push(chunk),
    });
    expect(result.stdout).toBe('\uFEFFx\uFFFD');
    expect(chunks.join('')).toBe('\uFEFFx\uFFFD');
  });

  it('reports death by a signal as 128 + signal number, not as a timeout', async () => {
    expect(await run('kill -9 $$')).toMatchObject({ exitCode: 137, timeoutOccurred: false });
    expect(await run('kill -TERM $$')).toMatchObject({ exitCode: 143, timeoutOccurred: false });
  });

  it('returns when bash exits and leaves a background process that holds the pipes alive', async () => {
    const dir = await mkdtemp(path.join(root, 'bg-'));
    // The background subshell writes to the inherited stdout after the command returned: it
    // must neither delay the result (20 s timeout vs 10 s test timeout) nor die of SIGPIPE.
    const held = await run(
      '(while [ ! -e go ]; do sleep 0.02; done; echo late; touch wrote; sleep 30) & echo $$ $!',
      { cwd: dir, timeoutMs: 20_000 },
    );
    expect(held).toMatchObject({ exitCode: 0, timeoutOccurred: false });
    const [pgid, pid] = held.stdout.trim().split(' ').map(Number) as [number, number];
    try {
      await writeFile(path.join(dir, 'go'), '');
      expect(await waitUntil(() => existsSync(path.join(dir, 'wrote')))).toBe(true);
      await sleep(50);
      expect(isAlive(pid)).toBe(true);
    } finally {
      process.kill(-pgid, 'SIGKILL');
    }
  }, 10_000);

  it('kills a grandchild that ignores SIGTERM after the grace period', async () => {
    const result = await run("(trap '' TERM; exec sleep 30) & echo $!; sleep 30", {
      timeoutMs: 300,
    });
    expect(result).toMatchObject({ timeoutOccurred: true, exitCode: -1 });
    const pid = Number(result.stdout.trim());
    expect(pid).toBeGreaterThan(0);
    expect(await waitUntil(() => !isAlive(pid))).toBe(true);
  }, 10_000);

  it('keeps memory bounded by the cap for a runaway producer', async () => {
    const total = 256 * 1024 * 1024;
    const cap = 1024 * 1024;
    const before = process.memoryUsage().arrayBuffers;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    }, 10);
    try {
      const result = await run(`yes | head -c ${total}`, {
        maxOutputBytes: cap,
        timeoutMs: 60_000,
      });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe(`${truncationMarker(total - cap)}${'y\n'.repeat(cap / 2)}`);
    } finally {
      clearInterval(sampler);
    }
    // Far below the 256 MiB produced: only the cap plus in-flight chunks awaiting GC.
    expect(peak - before).toBeLessThan(96 * 1024 * 1024);
  }, 60_000);

  it('rejects a missing cwd or a file as cwd with INVALID_CWD', async () => {
    const missing = path.join(root, 'missing');
    const error = await rejectionOf(run('true', { cwd: missing }));
    expect(WorkspaceError.isInstance(error, 'INVALID_CWD')).toBe(true);
    expect((error as WorkspaceError).message).toContain(missing);
    expect((error as WorkspaceError).details).toEqual({ path: missing });
    const file = path.join(root, 'a-file');
    await writeFile(file, '');
    const fileError = await rejectionOf(run('true', { cwd: file }));
    expect(WorkspaceError.isInstance(fileError, 'INVALID_CWD')).toBe(true);
    expect((fileError as WorkspaceError).message).toContain('not a directory');
  });

  it('rejects with SPAWN_ERROR when the shell cannot start', async () => {
    const error = await rejectionOf(run('true', { shell: '/nonexistent/bash' }));
    expect(WorkspaceError.isInstance(error, 'SPAWN_ERROR')).toBe(true);
    expect((error as Error).message).toContain('/nonexistent/bash');
  });

  it('rejects a bad maxOutputBytes with INVALID_ARGUMENT', async () => {
    const error = await rejectionOf(run('true', { maxOutputBytes: -1 }));
    expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as Error).message).toContain('maxOutputBytes');
  });

  it('rejects NUL bytes in the command or env with INVALID_ARGUMENT naming the field', async () => {
    const error = await rejectionOf(run('echo a\0b'));
    expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as WorkspaceError).details).toEqual({ field: 'command' });
    const envError = await rejectionOf(run('true', { env: { AW_NUL: 'a\0b' } }));
    expect(WorkspaceError.isInstance(envError, 'INVALID_ARGUMENT')).toBe(true);
    expect((envError as WorkspaceError).details).toEqual({ field: 'env.AW_NUL' });
  });

  it('rejects an already-aborted signal without spawning', async () => {
    const dir = await mkdtemp(path.join(root, 'pre-abort-'));
    const error = await rejectionOf(run('touch ran', { cwd: dir, signal: AbortSignal.abort() }));
    expect(WorkspaceError.isInstance(error, 'ABORTED')).toBe(true);
    expect(existsSync(path.join(dir, 'ran'))).toBe(false);
  });

  it('stops the command and rejects with the error a callback throws', async () => {
    const boom = new Error('callback failed');
    let pid = 0;
    const error = await rejectionOf(
      run('echo $$; sleep 30', {
        onStdout: (chunk) => {
          pid = Number(chunk.trim());
          throw boom;
        },
      }),
    );
    expect(error).toBe(boom);
    expect(pid).toBeGreaterThan(0);
    expect(await waitUntil(() => !isAlive(pid))).toBe(true);
  });

  it("finds bash even when the command's env replaces PATH", async () => {
    const result = await run('printf %s "$PATH"', { env: { PATH: '/nonexistent' } });
    expect(result).toMatchObject({ exitCode: 0, stdout: '/nonexistent' });
  });

  it('merges env over process.env', async () => {
    const result = await run('printf "%s|%s" "$AW_UNIT_VAR" "$HOME"', {
      env: { AW_UNIT_VAR: 'x y' },
    });
    expect(result.stdout).toBe(`x y|${process.env.HOME ?? ''}`);
  });
});
