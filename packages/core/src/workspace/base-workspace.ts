import type {
  ActionWire,
  ObservationWire,
  RuntimePluginStatusWire,
} from '@agent-workspace/protocol';
import { abortedError } from '../errors/aborted-error.js';
import type { ActionExecutor, ExecuteActionOptions } from './action-executor.js';
import { type CapabilityHookOptions, unsupportedCapability } from './capability-hooks.js';
import { checkActionWire } from './check-action-wire.js';
import type { CommandRequest } from './command-request.js';
import { ContractWorkspace } from './contract-workspace.js';
import type {
  DirectoryTransfer,
  DirectoryTransferOptions,
  DirectoryTransferResult,
} from './directory-transfer.js';
import { assertWritable } from './occupancy-state.js';
import { resolveCallerPath } from './resolve-path-argument.js';
import {
  type BrowseOptions,
  type BrowserObservation,
  type IPythonObservation,
  type RuntimeActionOptions,
  type RuntimeActions,
  runtimeActionsOf,
} from './runtime-actions.js';
import { NO_WORKSPACE_CAPABILITIES, type WorkspaceCapabilities } from './workspace-capabilities.js';

export { DEFAULT_COMMAND_TIMEOUT_MS } from './command-request.js';
export type { BaseWorkspaceOptions } from './contract-workspace.js';
/** Re-exported: core's index and the workspace types take them from here. */
export type { CapabilityHookOptions, CommandRequest };

/**
 * Template for every workspace type: validates arguments, resolves relative paths against
 * `workingDir` the same way everywhere, refuses calls after `close()`, and makes `close()`
 * idempotent (the core contract, from {@link ContractWorkspace}). Subclasses implement the
 * protected `run*` hooks with already-resolved input.
 *
 * The optional capabilities (`capabilities`) are template methods too: every `BaseWorkspace`
 * has `uploadDirectory` / `downloadDirectory` ({@link DirectoryTransfer}) and `executeAction`,
 * `runtimePlugins`, `browse`, `browseInteractive`, `runIpython` ({@link ActionExecutor},
 * {@link RuntimeActions}). A type that supports one declares it in `capabilities` and overrides
 * its hooks (`runUploadDirectory`, `runDownloadDirectory`, `runAction`, `runRuntimePlugins`);
 * the default hooks reject with `NOT_SUPPORTED`.
 */
export abstract class BaseWorkspace
  extends ContractWorkspace
  implements DirectoryTransfer, ActionExecutor, RuntimeActions
{
  /** What this workspace type supports beyond the core contract; the default: nothing. */
  get capabilities(): WorkspaceCapabilities {
    return NO_WORKSPACE_CAPABILITIES;
  }

  /**
   * Copies the caller's directory `sourceDir` into the workspace's `destinationDir` (see
   * {@link DirectoryTransfer}). `FORBIDDEN` while a `shared_read` lease is held, as
   * `fileUpload`; `NOT_SUPPORTED` without the `directoryTransfer` capability.
   */
  async uploadDirectory(
    sourceDir: string,
    destinationDir: string,
    options: DirectoryTransferOptions = {},
  ): Promise<DirectoryTransferResult> {
    this.assertOpen();
    assertWritable(this, this.kind, 'destinationDir');
    const source = resolveCallerPath(sourceDir, 'sourceDir');
    const destination = this.resolvePath(destinationDir, 'destinationDir');
    if (options.signal?.aborted) throw abortedError(options.signal);
    return this.runUploadDirectory(source, destination, { signal: options.signal });
  }

  /**
   * Copies the workspace's directory `sourceDir` into the caller's `destinationDir` (see
   * {@link DirectoryTransfer}); `NOT_SUPPORTED` without the `directoryTransfer` capability.
   */
  async downloadDirectory(
    sourceDir: string,
    destinationDir: string,
    options: DirectoryTransferOptions = {},
  ): Promise<DirectoryTransferResult> {
    this.assertOpen();
    const source = this.resolvePath(sourceDir, 'sourceDir');
    const destination = resolveCallerPath(destinationDir, 'destinationDir');
    if (options.signal?.aborted) throw abortedError(options.signal);
    return this.runDownloadDirectory(source, destination, { signal: options.signal });
  }

  /**
   * Runs an OpenHands action on the workspace's runtime plugins (see {@link ActionExecutor}).
   * `INVALID_ARGUMENT` naming `action`, `action.action`, `action.args` or `action.timeout` when
   * malformed; `NOT_SUPPORTED` without the `runtimeActions` capability.
   */
  async executeAction(
    action: ActionWire,
    options: ExecuteActionOptions = {},
  ): Promise<ObservationWire> {
    this.assertOpen();
    checkActionWire(action);
    if (options.signal?.aborted) throw abortedError(options.signal);
    return this.runAction(action, { signal: options.signal });
  }

  /** The runtime plugins behind the workspace and their state; `NOT_SUPPORTED` without them. */
  async runtimePlugins(options: CapabilityHookOptions = {}): Promise<RuntimePluginStatusWire[]> {
    this.assertOpen();
    if (options.signal?.aborted) throw abortedError(options.signal);
    return this.runRuntimePlugins({ signal: options.signal });
  }

  /** Opens `url` in the browser plugin (see `RuntimeActions.browse`). */
  async browse(url: string, options?: BrowseOptions): Promise<BrowserObservation> {
    this.assertOpen();
    return runtimeActionsOf(this).browse(url, options);
  }

  /** Runs BrowserGym actions in the browser plugin (see `RuntimeActions.browseInteractive`). */
  async browseInteractive(
    browserActions: string,
    options?: BrowseOptions,
  ): Promise<BrowserObservation> {
    this.assertOpen();
    return runtimeActionsOf(this).browseInteractive(browserActions, options);
  }

  /** Runs an IPython cell in the kernel plugin (see `RuntimeActions.runIpython`). */
  async runIpython(code: string, options?: RuntimeActionOptions): Promise<IPythonObservation> {
    this.assertOpen();
    return runtimeActionsOf(this).runIpython(code, options);
  }

  /** Copies resolved `sourcePath` (caller side) into `destinationPath`; default `NOT_SUPPORTED`. */
  protected async runUploadDirectory(
    _sourcePath: string,
    _destinationPath: string,
    _options: CapabilityHookOptions,
  ): Promise<DirectoryTransferResult> {
    throw unsupportedCapability(this.kind, 'directoryTransfer', 'copy directories');
  }

  /** Copies resolved `sourcePath` (workspace side) into `destinationPath`; default `NOT_SUPPORTED`. */
  protected async runDownloadDirectory(
    _sourcePath: string,
    _destinationPath: string,
    _options: CapabilityHookOptions,
  ): Promise<DirectoryTransferResult> {
    throw unsupportedCapability(this.kind, 'directoryTransfer', 'copy directories');
  }

  /** Runs a checked action; the default rejects with `NOT_SUPPORTED`. */
  protected async runAction(
    _action: ActionWire,
    _options: CapabilityHookOptions,
  ): Promise<ObservationWire> {
    throw unsupportedCapability(this.kind, 'runtimeActions', 'run runtime plugin actions');
  }

  /** Lists the runtime plugins; the default rejects with `NOT_SUPPORTED`. */
  protected async runRuntimePlugins(
    _options: CapabilityHookOptions,
  ): Promise<RuntimePluginStatusWire[]> {
    throw unsupportedCapability(this.kind, 'runtimeActions', 'run runtime plugin actions');
  }
}
