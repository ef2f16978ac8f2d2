import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellQuote } from '../internal/process/shell-quote.js';
import { actionExecutorOf } from '../workspace/action-executor.js';
import { directoryTransferOf } from '../workspace/directory-transfer.js';
import type { Workspace } from '../workspace/workspace.js';
import type { WorkspaceCapabilities } from '../workspace/workspace-capabilities.js';
import type { ContractContext } from './contract-context.js';
import { expectRejection } from './rejection-of.js';

const TIMEOUT_MS = 120_000;

/**
 * Capability section of the workspace contract: `capabilities`, when declared, is two booleans;
 * a workspace that declares `directoryTransfer` copies a tree both ways (relative workspace
 * paths resolve against `workingDir`) and refuses bad arguments and calls after `close()`; one
 * that declares `runtimeActions` lists its plugins and refuses malformed actions naming the
 * field. A capability that is not declared is not reachable through `directoryTransferOf` /
 * `actionExecutorOf`.
 */
export function describeCapabilityContract(context: ContractContext): void {
  describe('capabilities', () => {
    let local: string;
    beforeAll(async () => {
      local = await mkdtemp(path.join(tmpdir(), 'workspace-capability-contract-'));
    });
    afterAll(async () => {
      await rm(local, { recursive: true, force: true });
    });

    const declared = (workspace: Workspace) => ({
      directoryTransfer: workspace.capabilities?.directoryTransfer === true,
      runtimeActions: workspace.capabilities?.runtimeActions === true,
    });

    /** Without the capability the test checks that it is really not declared. */
    const expectUndeclared = (capability: keyof WorkspaceCapabilities): void => {
      expect(context.workspace().capabilities?.[capability] ?? false).toBe(false);
    };

    it('declares its capabilities as booleans, and only those are reachable', () => {
      const workspace = context.workspace();
      const { capabilities } = workspace;
      if (capabilities !== undefined) {
        expect(typeof capabilities.directoryTransfer).toBe('boolean');
        expect(typeof capabilities.runtimeActions).toBe('boolean');
      }
      const { directoryTransfer, runtimeActions } = declared(workspace);
      expect(directoryTransferOf(workspace) !== undefined).toBe(directoryTransfer);
      expect(actionExecutorOf(workspace) !== undefined).toBe(runtimeActions);
    });

    it(
      'with directoryTransfer: a tree goes in and comes back the same',
      async () => {
        const transfer = directoryTransferOf(context.workspace());
        if (transfer === undefined) return expectUndeclared('directoryTransfer');
        const source = path.join(local, 'tree');
        await mkdir(path.join(source, 'nested'), { recursive: true });
        await writeFile(path.join(source, 'top.txt'), 'top\n');
        await writeFile(path.join(source, 'nested', 'deep.txt'), 'deep\n');
        const scratch = await context.scratchDir('directory');
        const relative = path.posix.relative(context.workspace().workingDir, `${scratch}/copy`);

        const uploaded = await transfer.uploadDirectory(source, relative);
        expect(uploaded).toMatchObject({ success: true, files: 2, bytes: 9 });
        expect(uploaded.destinationPath).toBe(`${scratch}/copy`);
        const seen = await context
          .workspace()
          .executeCommand(`cat ${shellQuote(`${scratch}/copy/nested/deep.txt`)}`);
        expect(seen.stdout).toBe('deep\n');

        const back = path.join(local, 'back');
        const downloaded = await transfer.downloadDirectory(relative, back);
        expect(downloaded).toMatchObject({ success: true, files: 2, bytes: 9 });
        expect(await readFile(path.join(back, 'top.txt'), 'utf8')).toBe('top\n');
        expect(await readFile(path.join(back, 'nested', 'deep.txt'), 'utf8')).toBe('deep\n');
      },
      TIMEOUT_MS,
    );

    it('with directoryTransfer: empty paths are INVALID_ARGUMENT naming the field', async () => {
      const transfer = directoryTransferOf(context.workspace());
      if (transfer === undefined) return expectUndeclared('directoryTransfer');
      const upload = await expectRejection(transfer.uploadDirectory('', 'x'), 'INVALID_ARGUMENT');
      expect(upload.details).toMatchObject({ field: 'sourceDir' });
      const download = await expectRejection(
        transfer.downloadDirectory('x', ''),
        'INVALID_ARGUMENT',
      );
      expect(download.details).toMatchObject({ field: 'destinationDir' });
    });

    it(
      'with runtimeActions: lists plugins and refuses malformed actions naming the field',
      async () => {
        const executor = actionExecutorOf(context.workspace());
        if (executor === undefined) return expectUndeclared('runtimeActions');
        expect(Array.isArray(await executor.runtimePlugins())).toBe(true);
        const unnamed = await expectRejection(
          executor.executeAction({ action: '', args: {} }),
          'INVALID_ARGUMENT',
        );
        expect(unnamed.details).toMatchObject({ field: 'action.action' });
        const late = await expectRejection(
          executor.executeAction({ action: 'run_ipython', args: {}, timeout: 0 }),
          'INVALID_ARGUMENT',
        );
        expect(late.details).toMatchObject({ field: 'action.timeout' });
      },
      TIMEOUT_MS,
    );

    it(
      'declared capabilities reject with WORKSPACE_CLOSED after close()',
      async () => {
        const workspace = await context.makeWorkspace();
        await workspace.close();
        const transfer = directoryTransferOf(workspace);
        if (transfer !== undefined) {
          await expectRejection(transfer.uploadDirectory(local, 'after-close'), 'WORKSPACE_CLOSED');
          await expectRejection(transfer.downloadDirectory('.', local), 'WORKSPACE_CLOSED');
        }
        const executor = actionExecutorOf(workspace);
        if (executor !== undefined) {
          await expectRejection(
            executor.executeAction({ action: 'run_ipython', args: { code: '1' } }),
            'WORKSPACE_CLOSED',
          );
          await expectRejection(executor.runtimePlugins(), 'WORKSPACE_CLOSED');
        }
      },
      TIMEOUT_MS,
    );
  });
}
