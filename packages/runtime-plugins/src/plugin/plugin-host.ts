import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { invalidArgument, WorkspaceError } from '@agent-workspace/core';
import { anySignal, timeoutSignal } from '@agent-workspace/core/internal';
import {
  type ActionWire,
  errorObservation,
  type ObservationWire,
  type RuntimePluginStatusWire,
  runtimePluginCapability,
} from '@agent-workspace/protocol';
import { MemoryMonitor } from '../memory/memory-monitor.js';
import { raceAbort, withBound } from './bounded-waits.js';
import { asActionArgument, parseActionArgs } from './parse-action-args.js';
import {
  type PluginEntry,
  pluginEntry,
  pluginStatusOf,
  unreadyObservation,
} from './plugin-entry.js';
import {
  checkPluginHostOptions,
  DEFAULT_ACTION_TIMEOUT_MS,
  DEFAULT_PLUGIN_START_TIMEOUT_MS,
  type PluginActionOptions,
  type PluginHostOptions,
} from './plugin-host-options.js';
import type { PluginRoute, RuntimePlugin } from './runtime-plugin.js';
import { BUILT_IN_PLUGIN_ACTIONS, loadRuntimePlugin } from './runtime-plugin-registry.js';
import { silentPluginLogger } from './silent-plugin-logger.js';
import { startPlugin } from './start-plugin.js';

/** Time past an action's own timeout after which the host answers for a plugin that did not. */
const ACTION_BACKSTOP_MS = 5_000;
/** Bound on one plugin's health check and on its `close()`. */
const PLUGIN_CALL_BOUND_MS = 10_000;

/**
 * Runs a set of runtime plugins: each is loaded, has its requirements checked and is started in
 * the background, so whoever hosts them (the agent-server, a local conversation) is up at once; a
 * plugin that fails is reported in {@link status} and the log and never takes the host down.
 * Actions wait for their plugin, bounded by the start timeout.
 *
 * @example
 * ```ts
 * await using host = PluginHost.start({ plugins: ['python'], workingDir: '/workspace' });
 * const observation = await host.executeAction({ action: 'run_ipython', args: { code: '6 * 7' } });
 * ```
 */
export class PluginHost implements AsyncDisposable {
  /** Resolves once every plugin is loaded (not yet started): their actions and routes are known. */
  readonly loaded: Promise<void>;
  readonly #entries: PluginEntry[];
  readonly #options: PluginHostOptions;
  readonly #memory: MemoryMonitor;
  readonly #ownsMemory: boolean;
  readonly #closer = new AbortController();
  readonly #startTimeoutMs: number;
  readonly #actionTimeoutMs: number;
  readonly #environment: Readonly<Record<string, string>>;
  #closing: Promise<void> | undefined;
  /** The plugins' state directory: the one given, or a temporary one removed at `close()`. */
  #stateRoot: Promise<string>;

  private constructor(options: PluginHostOptions) {
    this.#options = options;
    this.#startTimeoutMs = options.startTimeoutMs ?? DEFAULT_PLUGIN_START_TIMEOUT_MS;
    this.#actionTimeoutMs = options.actionTimeoutMs ?? DEFAULT_ACTION_TIMEOUT_MS;
    this.#environment = checkPluginHostOptions(options);
    this.#ownsMemory = options.memory === undefined;
    this.#memory = options.memory ?? new MemoryMonitor({ limitBytes: options.memoryLimitBytes });
    const names = options.plugins.map((plugin) =>
      typeof plugin === 'string' ? plugin : plugin.name,
    );
    const stateRoot = this.#makeStateRoot();
    this.#stateRoot = stateRoot;
    this.#entries = options.plugins.map((reference, index) =>
      pluginEntry(names[index] as string, typeof reference === 'string' ? undefined : reference),
    );
    const loads = this.#entries.map((entry, index) =>
      this.#load(entry, options.plugins[index] as string | RuntimePlugin),
    );
    this.loaded = Promise.all(loads).then(() => {});
    this.#entries.forEach((entry, index) => {
      entry.ready = (loads[index] as Promise<void>).then(() => this.#start(entry, stateRoot));
    });
  }

  /**
   * Starts loading and starting `options.plugins` in the background and returns at once.
   *
   * @throws WorkspaceError `INVALID_ARGUMENT` when a plugin is listed twice, or naming
   * `environment` or `sandbox` when they are not what they must be.
   */
  static start(options: PluginHostOptions): PluginHost {
    return new PluginHost(options);
  }

  /** The memory monitor plugins' processes are registered with. */
  get memory(): MemoryMonitor {
    return this.#memory;
  }

  /** Capabilities of the plugins that are ready: each plugin's own and those it announces. */
  capabilities(): string[] {
    return this.#entries
      .filter((entry) => entry.state === 'ready' && entry.plugin)
      .flatMap((entry) => [
        runtimePluginCapability(entry.name),
        ...(entry.plugin?.capabilities ?? []),
      ]);
  }

  /** True when one of the host's plugins runs `action` (or will, once loaded). */
  handles(action: string): boolean {
    return this.#owner(action) !== undefined;
  }

  /** The actions the host's loaded plugins run. */
  actionNames(): string[] {
    return this.#entries.flatMap((entry) => Object.keys(entry.plugin?.actions ?? {}));
  }

  /** Routes of the loaded plugins, by plugin name (call after {@link loaded}). */
  routes(): { plugin: string; route: PluginRoute }[] {
    return this.#entries.flatMap((entry) =>
      (entry.plugin?.routes ?? []).map((route) => ({ plugin: entry.name, route })),
    );
  }

  /** Resolves when `name` is ready; rejects with why it is not (failed, closed, unknown). */
  async whenReady(name: string, signal?: AbortSignal): Promise<RuntimePlugin> {
    const entry = this.#entries.find((candidate) => candidate.name === name);
    if (!entry) throw invalidArgument('plugin', `${name} is not one of this host's plugins`);
    await raceAbort(entry.ready, signal);
    if (entry.state !== 'ready' || !entry.plugin) {
      throw new WorkspaceError({
        code: 'NOT_SUPPORTED',
        message: `the ${name} plugin is ${entry.state}${entry.error ? `: ${entry.error}` : ''}`,
      });
    }
    return entry.plugin;
  }

  /** Each plugin's state, with a fresh (bounded) health check of the ready ones. */
  async status(): Promise<RuntimePluginStatusWire[]> {
    await Promise.all(
      this.#entries
        .filter((entry) => entry.state === 'ready' && entry.plugin)
        .map(async (entry) => {
          const health = await withBound(
            (entry.plugin as RuntimePlugin).health(),
            PLUGIN_CALL_BOUND_MS,
          ).catch((error: unknown) => ({
            healthy: false,
            detail: describe(error),
            memoryBytes: undefined,
          }));
          entry.healthy = health?.healthy ?? false;
          entry.memoryBytes = health?.memoryBytes ?? null;
        }),
    );
    return this.#entries.map(pluginStatusOf);
  }

  /** {@link status}; the name `ActionExecutor` clients know. */
  runtimePlugins(): Promise<RuntimePluginStatusWire[]> {
    return this.status();
  }

  /**
   * Runs a plugin action and answers its observation. Waits for the plugin (bounded by the start
   * timeout); a plugin that is not enabled, failed or is still starting is an `error`
   * observation, as in OpenHands.
   *
   * @throws WorkspaceError `INVALID_ARGUMENT` naming `action.action` (no plugin here runs it and
   * it is no built-in plugin action) or `action.args.<field>` (bad arguments).
   */
  async executeAction(
    action: ActionWire,
    options: PluginActionOptions = {},
  ): Promise<ObservationWire> {
    await this.loaded;
    const entry = this.#owner(action.action);
    if (!entry) {
      const builtIn = BUILT_IN_PLUGIN_ACTIONS[action.action];
      if (builtIn !== undefined) {
        return errorObservation(
          `The ${builtIn} plugin is not enabled here, so ${action.action} cannot run; enable it (agent-server --plugin ${builtIn}).`,
          'PLUGIN_DISABLED',
        );
      }
      const known = this.actionNames();
      throw invalidArgument(
        'action.action',
        `${JSON.stringify(action.action)} is not an action this host runs${known.length ? ` (it runs ${known.join(', ')})` : ''}`,
      );
    }
    const handler = entry.plugin?.actions[action.action];
    if (!handler)
      throw invalidArgument('action.action', `${action.action} is not run by ${entry.name}`);
    const args = parseActionArgs(handler.args, action);
    const signal = anySignal([this.#closer.signal, options.signal]);
    const waited = await withBound(raceAbort(entry.ready, signal), this.#startTimeoutMs).catch(
      () => 'aborted' as const,
    );
    const unready = unreadyObservation(entry, waited === 'aborted', this.#startTimeoutMs);
    if (unready !== undefined) return unready;
    const timeoutMs = action.timeout ? action.timeout * 1000 : this.#actionTimeoutMs;
    const actionSignal = timeoutSignal({ timeoutMs, signal });
    try {
      const observation = await withBound(
        handler.run(args, { signal: actionSignal, timeoutMs }, action),
        timeoutMs + ACTION_BACKSTOP_MS,
      );
      return (
        observation ??
        errorObservation(
          `The ${entry.name} plugin did not answer ${action.action} within ${timeoutMs / 1000} s.`,
          'ACTION_TIMEOUT',
        )
      );
    } catch (error) {
      if (WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')) throw asActionArgument(error);
      return errorObservation(
        `${action.action} failed in the ${entry.name} plugin: ${describe(error)}`,
        'PLUGIN_ERROR',
      );
    }
  }

  /** Stops every plugin (each bounded) and the host's own memory monitor. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #shutdown(): Promise<void> {
    this.#closer.abort();
    await Promise.all(this.#entries.map((entry) => entry.ready.catch(() => {})));
    await Promise.all(
      this.#entries.map(async (entry) => {
        entry.state = 'closed';
        if (entry.plugin)
          await withBound(entry.plugin.close(), PLUGIN_CALL_BOUND_MS).catch(() => {});
      }),
    );
    if (this.#ownsMemory) await this.#memory.close();
    if (this.#options.stateDir === undefined) {
      await rm(await this.#stateRoot, { recursive: true, force: true }).catch(() => {});
    }
  }

  #owner(action: string): PluginEntry | undefined {
    const loaded = this.#entries.find((entry) => entry.plugin && action in entry.plugin.actions);
    if (loaded) return loaded;
    const builtIn = BUILT_IN_PLUGIN_ACTIONS[action];
    return this.#entries.find((entry) => !entry.plugin && entry.name === builtIn);
  }

  #makeStateRoot(): Promise<string> {
    const { stateDir } = this.#options;
    if (stateDir === undefined) return mkdtemp(path.join(os.tmpdir(), 'agent-workspace-plugins-'));
    return mkdir(stateDir, { recursive: true, mode: 0o700 }).then(() => stateDir);
  }

  async #load(entry: PluginEntry, reference: string | RuntimePlugin): Promise<void> {
    if (typeof reference !== 'string') return;
    try {
      entry.plugin = await loadRuntimePlugin(reference);
    } catch (error) {
      this.#fail(entry, `could not be loaded: ${describe(error)}`);
    }
  }

  async #start(entry: PluginEntry, stateRoot: Promise<string>): Promise<void> {
    const plugin = entry.plugin;
    if (!plugin || entry.state !== 'starting') return;
    const logger = this.#options.logger ?? silentPluginLogger;
    const failure = await startPlugin({
      plugin,
      workingDir: this.#options.workingDir,
      stateRoot: await stateRoot,
      logger,
      sandbox: this.#options.sandbox,
      environment: this.#environment,
      memory: this.#memory,
      hostSignal: this.#closer.signal,
      startTimeoutMs: this.#startTimeoutMs,
    });
    if (this.#closer.signal.aborted) return;
    if (failure === undefined) {
      entry.state = 'ready';
      logger.info({ plugin: entry.name }, 'runtime plugin ready');
      return;
    }
    this.#fail(entry, failure);
    await withBound(plugin.close(), PLUGIN_CALL_BOUND_MS).catch(() => {});
  }

  #fail(entry: PluginEntry, reason: string): void {
    entry.state = this.#closer.signal.aborted ? 'closed' : 'failed';
    entry.error = reason;
    (this.#options.logger ?? silentPluginLogger).error(
      { plugin: entry.name, reason },
      'runtime plugin failed',
    );
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
