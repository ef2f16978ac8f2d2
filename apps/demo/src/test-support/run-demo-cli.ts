import { spawn } from 'node:child_process';
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

/** Runs the demo CLI with `args`, without the caller's LLM_* variables and colour. */
export async function demo(...args: string[]): Promise<DemoRun> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('LLM_')),
  );
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: DEMO_DIR,
    env: { ...env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
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
