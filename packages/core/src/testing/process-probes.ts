import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { shellQuote } from '../internal/process/shell-quote.js';
import type { Workspace } from '../workspace/workspace.js';

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

/** Asserts `error` is a `WorkspaceError` of `code` whose message mentions `mention`. */
export function expectWorkspaceError(
  error: unknown,
  code: WorkspaceError['code'],
  mention?: string,
): void {
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
export async function readPids(
  workspace: Workspace,
  cwd: string,
  pidFiles: string[],
): Promise<string[]> {
  const result = await workspace.executeCommand(`cat ${pidFiles.map(shellQuote).join(' ')}`, {
    cwd,
  });
  expect(result.exitCode, `pid files missing: ${result.stderr}`).toBe(0);
  const pids = result.stdout.split(/\s+/).filter(Boolean);
  expect(pids).toHaveLength(pidFiles.length);
  for (const pid of pids) expect(pid).toMatch(/^\d+$/);
  return pids;
}

/** The pids among `pids` that are still alive (not zombies) in the workspace. */
export async function alivePids(workspace: Workspace, pids: string[]): Promise<string[]> {
  const script = `${IS_ALIVE}\nfor p in ${pids.join(' ')}; do if is_alive "$p"; then echo "$p"; fi; done`;
  const result = await workspace.executeCommand(script);
  expect(result.exitCode).toBe(0);
  return result.stdout.split(/\s+/).filter(Boolean);
}

/** Waits (briefly) until none of `pids` is alive; fails naming the survivors. */
export async function expectAllDead(workspace: Workspace, pids: string[]): Promise<void> {
  let alive: string[] = [];
  await waitUntil(async () => {
    alive = await alivePids(workspace, pids);
    return alive.length === 0;
  }, 5_000);
  expect(alive, 'processes of the command tree survived').toEqual([]);
}
