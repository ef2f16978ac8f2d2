import type { CommandSandbox } from '@agent-workspace/core';
import type { ActionWire, ObservationWire } from '@agent-workspace/protocol';
import type { z } from 'zod';
import type { ProcessTreeWatch } from '../memory/memory-monitor.js';
import type { PluginRequirement } from './plugin-requirement.js';

/** The logger a plugin writes to: structured fields first, as pino takes them. */
export interface PluginLogger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** What a plugin gets to start with. */
export interface PluginContext {
  /** The workspace's working directory: where the kernel starts, where downloads go. */
  workingDir: string;
  /**
   * A directory of the plugin's own (created, private), for its files. With a {@link sandbox} it
   * must be visible read-write inside the sandbox at the same path (the kernel's sockets and the
   * browser's profile live here).
   */
  stateDir: string;
  logger: PluginLogger;
  /**
   * The command sandbox every process the plugin starts runs in (through `sandbox.wrap`); none:
   * processes run on the host.
   */
  sandbox?: CommandSandbox | undefined;
  /**
   * The whole environment of every process the plugin starts (already scrubbed of the server's
   * keys); none: `childEnvironment()` of `@agent-workspace/core/internal`, this process's without
   * them. Never `process.env`.
   */
  environment?: Readonly<Record<string, string>> | undefined;
  /** Aborted when the host closes; `initialize` gives up and long work stops. */
  signal: AbortSignal;
  /**
   * Registers a process tree (a kernel, a browser) with the memory monitor, which kills the tree
   * and calls `onExceeded` once it uses more than the host's per-tree limit.
   */
  watchProcessTree: (watch: ProcessTreeWatch) => () => void;
  /**
   * Measures every watched tree now and enforces the limit, as the monitor's timer does; for work
   * that ends between two samples (a cell that leaves its kernel over the limit) to be told with
   * that work's observation.
   */
  measureProcessTrees: () => void;
}

/** What one action call gets. */
export interface PluginActionContext {
  /** Aborted when the client goes away, the action's time is up or the host closes. */
  signal: AbortSignal;
  /** Time the action may take, in milliseconds (the action's `timeout` or the host's default). */
  timeoutMs: number;
}

/**
 * One OpenHands action a plugin runs: its args schema (checked by the host, failures are 400s
 * naming the field) and the handler that answers an observation. Failures the agent should read
 * (a page that did not load, a cell that raised) are observations, not exceptions.
 */
export interface PluginAction<Schema extends z.ZodType = z.ZodType> {
  args: Schema;
  run(
    args: z.infer<Schema>,
    context: PluginActionContext,
    action: ActionWire,
  ): Promise<ObservationWire>;
}

/** An HTTP route a plugin adds, mounted by the agent-server under `/api/plugins/<name>`. */
export interface PluginRoute {
  method: 'GET' | 'POST';
  /** Path below the plugin's prefix, e.g. `/screenshot`. */
  path: string;
  /** Query (GET) or JSON body (POST) schema; failures are 422 naming the field. */
  input: z.ZodType;
  summary: string;
  handle(input: unknown, signal: AbortSignal): Promise<unknown>;
}

/** How a plugin is doing. */
export interface PluginHealth {
  healthy: boolean;
  /** Why not, or a note. */
  detail?: string | undefined;
  /** Resident memory of its processes, in bytes, when it has any. */
  memoryBytes?: number | undefined;
}

/**
 * A runtime plugin: loaded by name, started in the background by a {@link PluginHost} once its
 * requirements hold, it runs the actions it names until `close()`.
 */
export interface RuntimePlugin {
  readonly name: string;
  readonly requirements: readonly PluginRequirement[];
  /** Capabilities the server lists while the plugin is ready (besides its own plugin capability). */
  readonly capabilities: readonly string[];
  /** The OpenHands actions it runs, by action name. */
  readonly actions: Readonly<Record<string, PluginAction>>;
  /** Extra HTTP routes; none by default. */
  readonly routes?: readonly PluginRoute[] | undefined;
  /** Starts it (a browser, a kernel); rejects with a message a person can act on. */
  initialize(context: PluginContext): Promise<void>;
  health(): Promise<PluginHealth>;
  /** Releases everything it started. Idempotent. */
  close(): Promise<void>;
}
