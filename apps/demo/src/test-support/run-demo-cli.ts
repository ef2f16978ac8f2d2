import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { expect } from 'vitest';

/** apps/demo, where the CLI runs from. */
const DEMO_DIR = path.resolve(import.meta.dirname, '../..');

/** How a demo process ended and what it printed. */
export interface DemoRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A demo process still running, its output so far, and how to wait for a line of it. */
export interface RunningDemo {
  readonly child: ChildProcessWithoutNullStreams;
  /** Standard output so far. */
  stdout(): string;
  /** Resolves with the first match of `pattern` in standard output; rejects if the demo exits first. */
  waitForOutput(pattern: RegExp): Promise<RegExpExecArray>;
  /** Resolves when the process has exited, with what it printed. */
  exited(): Promise<DemoRun>;
}

/** Starts the demo CLI with `args`, without the caller's LLM_* variables and colour. */
export function startDemo(...args: string[]): RunningDemo {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('LLM_')),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: DEMO_DIR,
    env: { ...env, NO_COLOR: '1' },
  });
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const closed = once(child, 'close').then(([code]) => ({
    code: code as number | null,
    stdout,
    stderr,
  }));
  const waitForOutput = (pattern: RegExp): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const match = pattern.exec(stdout);
        if (!match) return;
        child.stdout.off('data', check);
        resolve(match);
      };
      child.stdout.on('data', check);
      check();
      void closed.then((run) => {
        reject(
          new Error(`the demo exited (${run.code}) before printing ${pattern}: ${run.stderr}`),
        );
      });
    });
  return { child, stdout: () => stdout, waitForOutput, exited: () => closed };
}

/** Runs the demo CLI with `args` to its end. */
export async function demo(...args: string[]): Promise<DemoRun> {
  return startDemo(...args).exited();
}

/** Asserts a failed run: `code`, one stderr line matching `line`, no stack, no stats.js result. */
export function expectOneLineFailure(run: DemoRun, code: number, line: RegExp): void {
  expect(run.code, run.stderr).toBe(code);
  expect(run.stderr.endsWith('\n')).toBe(true);
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(run.stderr.trimEnd()).toMatch(line);
  expect(`${run.stdout}${run.stderr}`).not.toMatch(/^\s+at /m);
  expect(`${run.stdout}${run.stderr}`).not.toContain('ELIFECYCLE');
  expect(run.stdout).not.toContain('changes:');
}
