import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Workspace } from '../workspace/workspace.js';
import type { ContractContext } from './contract-context.js';

const TIMEOUT_MS = 180_000;

/**
 * Lifecycle section of the workspace contract, run on fresh workspaces from
 * `context.makeWorkspace()`: `close()` is idempotent (sequential and concurrent), `await using`
 * closes, every operation after close rejects with `WORKSPACE_CLOSED`, `kind` / `workingDir`
 * are well formed, and `pause()` / `resume()` either work or reject with `NOT_SUPPORTED`.
 */
export function describeLifecycleContract(context: ContractContext): void {
  describe('lifecycle', () => {
    let local: string;
    beforeAll(async () => {
      local = await mkdtemp(path.join(tmpdir(), 'workspace-lifecycle-contract-'));
    });
    afterAll(async () => {
      await rm(local, { recursive: true, force: true });
    });

    /** Asserts that every operation of a closed workspace rejects with `WORKSPACE_CLOSED`. */
    const expectClosed = async (workspace: Workspace): Promise<void> => {
      const source = path.join(local, 'upload-source.txt');
      await writeFile(source, 'x');
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['executeCommand', () => workspace.executeCommand('echo still open')],
        ['fileUpload', () => workspace.fileUpload(source, 'after-close.txt')],
        ['fileDownload', () => workspace.fileDownload('after-close.txt', `${source}.back`)],
        ['gitChanges', () => workspace.gitChanges('.')],
        ['gitDiff', () => workspace.gitDiff('file.txt')],
        ['pause', () => workspace.pause()],
        ['resume', () => workspace.resume()],
      ];
      for (const [name, call] of calls) {
        await expect(call(), name).rejects.toMatchObject({
          name: 'WorkspaceError',
          code: 'WORKSPACE_CLOSED',
        });
      }
    };

    it('has a non-empty kind and an absolute workingDir', () => {
      const workspace = context.workspace();
      expect(typeof workspace.kind).toBe('string');
      expect(workspace.kind.length).toBeGreaterThan(0);
      expect(typeof workspace.workingDir).toBe('string');
      expect(path.posix.isAbsolute(workspace.workingDir)).toBe(true);
    });

    it(
      'close() is idempotent and later calls reject with WORKSPACE_CLOSED',
      async () => {
        const workspace = await context.makeWorkspace();
        try {
          expect((await workspace.executeCommand('echo open')).stdout.trim()).toBe('open');
          await workspace.close();
          await workspace.close();
          await expectClosed(workspace);
          await workspace.close();
        } finally {
          await workspace.close();
        }
      },
      TIMEOUT_MS,
    );

    it(
      'concurrent close() and [Symbol.asyncDispose]() calls all resolve',
      async () => {
        const workspace = await context.makeWorkspace();
        try {
          await Promise.all([
            workspace.close(),
            workspace[Symbol.asyncDispose](),
            workspace.close(),
          ]);
          await expectClosed(workspace);
        } finally {
          await workspace.close();
        }
      },
      TIMEOUT_MS,
    );

    it(
      'await using closes the workspace at the end of the block',
      async () => {
        let escaped: Workspace | undefined;
        {
          await using workspace = await context.makeWorkspace();
          escaped = workspace;
          expect((await workspace.executeCommand('echo in scope')).exitCode).toBe(0);
        }
        await expectClosed(escaped);
      },
      TIMEOUT_MS,
    );

    it(
      'pause() then resume() works, or pause() rejects with NOT_SUPPORTED',
      async () => {
        const workspace = await context.makeWorkspace();
        try {
          const paused = await workspace.pause().then(
            () => true,
            (error: unknown) => {
              expect(error).toMatchObject({ name: 'WorkspaceError', code: 'NOT_SUPPORTED' });
              return false;
            },
          );
          if (paused) await workspace.resume();
          // Either way the workspace is still usable.
          const result = await workspace.executeCommand('echo alive');
          expect(result.exitCode).toBe(0);
          expect(result.stdout.trim()).toBe('alive');
        } finally {
          await workspace.close();
        }
      },
      TIMEOUT_MS,
    );
  });
}
