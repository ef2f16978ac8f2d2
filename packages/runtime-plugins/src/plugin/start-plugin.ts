import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { CommandSandbox } from '@agent-workspace/core';
import { timeoutSignal } from '@agent-workspace/core/internal';
import type { MemoryMonitor } from '../memory/memory-monitor.js';
import { raceAbort } from './bounded-waits.js';
import { checkRequirements } from './check-requirements.js';
import type { PluginLogger, RuntimePlugin } from './runtime-plugin.js';

/** Options of {@link startPlugin}. */
export interface StartPluginOptions {
  plugin: RuntimePlugin;
  workingDir: string;
  /** Where the plugin's private directory is made. */
  stateRoot: string;
  logger: PluginLogger;
  sandbox: CommandSandbox | undefined;
  environment: Readonly<Record<string, string>>;
  memory: MemoryMonitor;
  /** Aborted when the host closes; the plugin keeps it as its own signal. */
  hostSignal: AbortSignal;
  startTimeoutMs: number;
}

/**
 * Checks `plugin`'s requirements and initializes it in a private directory, bounded by
 * `startTimeoutMs`. Resolves to why it did not start (a missing requirement and its install
 * hint, a start error, the bound), or `undefined` once it is ready.
 */
export async function startPlugin(options: StartPluginOptions): Promise<string | undefined> {
  const { plugin, hostSignal, startTimeoutMs } = options;
  const signal = timeoutSignal({ timeoutMs: startTimeoutMs, signal: hostSignal });
  try {
    const report = await checkRequirements(plugin.requirements, signal);
    if (report.problems.length > 0) return `missing requirements: ${report.problems.join('; ')}`;
    const stateDir = path.join(options.stateRoot, plugin.name);
    await mkdir(stateDir, { recursive: true, mode: 0o700 });
    await raceAbort(
      plugin.initialize({
        workingDir: options.workingDir,
        stateDir,
        logger: options.logger,
        sandbox: options.sandbox,
        environment: options.environment,
        signal: hostSignal,
        watchProcessTree: (watch) => options.memory.watch(watch),
        measureProcessTrees: () => options.memory.sample(),
      }),
      signal,
    );
    return undefined;
  } catch (error) {
    return signal.aborted && !hostSignal.aborted
      ? `did not start within ${startTimeoutMs / 1000} s`
      : `failed to start: ${error instanceof Error ? error.message : String(error)}`;
  }
}
