import path from 'node:path';
import type {
  ActionWire,
  CommandResult,
  FileOperationResult,
  GitChange,
  GitDiff,
  ObservationWire,
  RuntimePluginStatusWire,
} from '@agent-workspace/protocol';
import { MAX_ACTION_NAME_LENGTH, MAX_BROWSE_URL_CHARS } from '@agent-workspace/protocol/constants';
import { describe, expect, it } from 'vitest';
import { expectRejection } from '../testing/rejection-of.js';
import { actionExecutorOf } from './action-executor.js';
import { BaseWorkspace, type CapabilityHookOptions } from './base-workspace.js';
import { type DirectoryTransferResult, directoryTransferOf } from './directory-transfer.js';
import { recordHeldLease } from './occupancy-state.js';
import type { WorkspaceCapabilities } from './workspace-capabilities.js';

/** Only the core contract: every capability hook keeps its `NOT_SUPPORTED` default. */
class PlainWorkspace extends BaseWorkspace {
  readonly kind: string = 'plain';
  protected async runCommand(): Promise<CommandResult> {
    throw new Error('not used');
  }
  protected async runFileUpload(): Promise<FileOperationResult> {
    throw new Error('not used');
  }
  protected async runFileDownload(): Promise<FileOperationResult> {
    throw new Error('not used');
  }
  protected async runGitChanges(): Promise<GitChange[]> {
    return [];
  }
  protected async runGitDiff(): Promise<GitDiff> {
    return { modified: null, original: null };
  }
  protected async runClose(): Promise<void> {}
}

/** Declares both capabilities and records what reaches their hooks. */
class CapableWorkspace extends PlainWorkspace {
  override readonly kind = 'capable';
  readonly transfers: Array<[string, string, string]> = [];
  readonly actions: ActionWire[] = [];
  /** What `runAction` answers. */
  answer: ObservationWire = {
    observation: 'run_ipython',
    content: '42',
    extras: { code: '6 * 7', image_urls: null },
  };

  override get capabilities(): WorkspaceCapabilities {
    return { directoryTransfer: true, runtimeActions: true };
  }

  protected override async runUploadDirectory(
    source: string,
    destination: string,
  ): Promise<DirectoryTransferResult> {
    this.transfers.push(['upload', source, destination]);
    return { success: true, sourcePath: source, destinationPath: destination, files: 0, bytes: 0 };
  }

  protected override async runDownloadDirectory(
    source: string,
    destination: string,
  ): Promise<DirectoryTransferResult> {
    this.transfers.push(['download', source, destination]);
    return { success: true, sourcePath: source, destinationPath: destination, files: 0, bytes: 0 };
  }

  protected override async runAction(
    action: ActionWire,
    _options: CapabilityHookOptions,
  ): Promise<ObservationWire> {
    this.actions.push(action);
    return this.answer;
  }

  protected override async runRuntimePlugins(): Promise<RuntimePluginStatusWire[]> {
    return [];
  }
}

const capable = () => new CapableWorkspace({ workingDir: '/work/project' });

/** Asserts `INVALID_ARGUMENT` naming `field`. */
async function expectField(promise: Promise<unknown>, field: string): Promise<void> {
  const error = await expectRejection(promise, 'INVALID_ARGUMENT');
  expect(error.details.field).toBe(field);
}

describe('BaseWorkspace capabilities', () => {
  it('a type that declares none has neither, and every capability method is NOT_SUPPORTED', async () => {
    const workspace = new PlainWorkspace({ workingDir: '/work/project' });
    expect(workspace.capabilities).toEqual({ directoryTransfer: false, runtimeActions: false });
    expect(directoryTransferOf(workspace)).toBeUndefined();
    expect(actionExecutorOf(workspace)).toBeUndefined();
    const calls: Array<[Promise<unknown>, string]> = [
      [workspace.uploadDirectory('/tmp/a', 'b'), 'directoryTransfer'],
      [workspace.downloadDirectory('a', '/tmp/b'), 'directoryTransfer'],
      [workspace.executeAction({ action: 'run_ipython', args: { code: '1' } }), 'runtimeActions'],
      [workspace.runtimePlugins(), 'runtimeActions'],
      [workspace.browse('http://127.0.0.1/'), 'runtimeActions'],
      [workspace.browseInteractive('go_back()'), 'runtimeActions'],
      [workspace.runIpython('1'), 'runtimeActions'],
    ];
    for (const [call, capability] of calls) {
      const error = await expectRejection(call, 'NOT_SUPPORTED');
      expect(error.details.capability).toBe(capability);
      expect(error.message).toContain('plain workspaces cannot');
    }
  });

  it('a type that declares them is found through directoryTransferOf / actionExecutorOf', () => {
    const workspace = capable();
    expect(directoryTransferOf(workspace)).toBe(workspace);
    expect(actionExecutorOf(workspace)).toBe(workspace);
    expect(directoryTransferOf({ uploadDirectory() {}, downloadDirectory() {} })).toBeUndefined();
    expect(actionExecutorOf({ executeAction() {}, runtimePlugins() {} })).toBeUndefined();
  });

  describe('directory transfer', () => {
    it('resolves workspace paths against workingDir and caller paths against the cwd', async () => {
      const workspace = capable();
      await workspace.uploadDirectory('local/src', 'dest/../out');
      await workspace.downloadDirectory('/abs/in', 'back');
      expect(workspace.transfers).toEqual([
        ['upload', path.resolve('local/src'), '/work/project/out'],
        ['download', '/abs/in', path.resolve('back')],
      ]);
    });

    it('names the field of a bad path and reaches no hook', async () => {
      const workspace = capable();
      await expectField(workspace.uploadDirectory('', 'x'), 'sourceDir');
      await expectField(workspace.uploadDirectory('a', 'x\0y'), 'destinationDir');
      await expectField(workspace.downloadDirectory(42 as unknown as string, 'x'), 'sourceDir');
      await expectField(workspace.downloadDirectory('a', ''), 'destinationDir');
      expect(workspace.transfers).toEqual([]);
    });

    it('refuses an upload with FORBIDDEN while a shared_read lease is held', async () => {
      const workspace = capable();
      recordHeldLease(workspace, {
        leaseId: 'lease-1',
        holderId: 'reviewer',
        mode: 'shared_read',
        pid: process.pid,
        acquiredAt: '2026-01-01T00:00:00.000Z',
      });
      const error = await expectRejection(workspace.uploadDirectory('a', 'b'), 'FORBIDDEN');
      expect(error.details).toMatchObject({ field: 'destinationDir', holderId: 'reviewer' });
      await workspace.downloadDirectory('a', 'b');
      expect(workspace.transfers.map(([direction]) => direction)).toEqual(['download']);
    });

    it('rejects ABORTED for an aborted signal and WORKSPACE_CLOSED after close', async () => {
      const workspace = capable();
      const signal = AbortSignal.abort();
      await expectRejection(workspace.uploadDirectory('a', 'b', { signal }), 'ABORTED');
      await expectRejection(workspace.downloadDirectory('a', 'b', { signal }), 'ABORTED');
      await workspace.close();
      await expectRejection(workspace.uploadDirectory('a', 'b'), 'WORKSPACE_CLOSED');
      expect(workspace.transfers).toEqual([]);
    });
  });

  describe('runtime actions', () => {
    it.each([
      ['a non-object', null, 'action'],
      ['an empty name', { action: '', args: {} }, 'action.action'],
      [
        'a long name',
        { action: 'x'.repeat(MAX_ACTION_NAME_LENGTH + 1), args: {} },
        'action.action',
      ],
      ['array args', { action: 'run_ipython', args: [] }, 'action.args'],
      ['a zero timeout', { action: 'run_ipython', args: {}, timeout: 0 }, 'action.timeout'],
      ['a NaN timeout', { action: 'run_ipython', args: {}, timeout: Number.NaN }, 'action.timeout'],
    ])('executeAction refuses %s naming the field', async (_label, action, field) => {
      const workspace = capable();
      await expectField(workspace.executeAction(action as unknown as ActionWire), field);
      expect(workspace.actions).toEqual([]);
    });

    it('typed actions check their arguments before anything is sent', async () => {
      const workspace = capable();
      await expectField(workspace.browse(''), 'url');
      await expectField(workspace.browse('x'.repeat(MAX_BROWSE_URL_CHARS + 1)), 'url');
      await expectField(
        workspace.browse('http://h/', { returnAxtree: 'yes' as unknown as boolean }),
        'returnAxtree',
      );
      await expectField(workspace.browseInteractive('  '), 'browserActions');
      await expectField(workspace.runIpython(7 as unknown as string), 'code');
      await expectField(workspace.runIpython('1', { timeoutSeconds: -1 }), 'timeoutSeconds');
      expect(workspace.actions).toEqual([]);
    });

    it('typed actions reach runAction as OpenHands actions and type the answer', async () => {
      const workspace = capable();
      const observation = await workspace.runIpython('6 * 7', { timeoutSeconds: 5 });
      expect(observation).toMatchObject({ observation: 'run_ipython', content: '42' });
      workspace.answer = { observation: 'error', content: 'no browser', extras: { error_id: '' } };
      const refused = await workspace.browse('http://127.0.0.1/', { returnAxtree: true });
      expect(refused).toMatchObject({ observation: 'error', content: 'no browser' });
      expect(workspace.actions).toEqual([
        { action: 'run_ipython', args: { code: '6 * 7' }, timeout: 5 },
        { action: 'browse', args: { url: 'http://127.0.0.1/', return_axtree: true } },
      ]);
    });

    it('an answer of another type is PROTOCOL_ERROR', async () => {
      const workspace = capable();
      workspace.answer = { observation: 'read', content: 'x', extras: {} };
      await expectRejection(workspace.browseInteractive('go_back()'), 'PROTOCOL_ERROR');
    });

    it('reject with WORKSPACE_CLOSED after close, before checking arguments', async () => {
      const workspace = capable();
      await workspace.close();
      await expectRejection(workspace.runIpython(''), 'WORKSPACE_CLOSED');
      await expectRejection(workspace.runtimePlugins(), 'WORKSPACE_CLOSED');
      await expectRejection(
        workspace.executeAction({ action: 'run_ipython', args: {} }),
        'WORKSPACE_CLOSED',
      );
    });
  });
});
