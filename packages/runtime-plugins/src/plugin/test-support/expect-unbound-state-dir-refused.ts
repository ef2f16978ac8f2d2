import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BubblewrapSandbox } from '@agent-workspace/core';
import { expect } from 'vitest';
import { PluginHost } from '../plugin-host.js';
import type { RuntimePlugin } from '../runtime-plugin.js';

/**
 * Starts `plugin` in a bubblewrap sandbox (no network) that does not bind its state directory
 * writable, and expects the start to fail saying which directory to bind. Removes what it made.
 */
export async function expectUnboundStateDirRefused(plugin: RuntimePlugin): Promise<void> {
  const { name } = plugin;
  const workingDir = await realpath(await mkdtemp(path.join(os.tmpdir(), `${name}-unbound-`)));
  const stateDir = await mkdtemp(path.join(os.tmpdir(), `${name}-unbound-state-`));
  const sandbox = await BubblewrapSandbox.start({ workingDir, network: false });
  const host = PluginHost.start({ plugins: [plugin], workingDir, stateDir, sandbox });
  try {
    await expect(host.whenReady(name)).rejects.toThrow(
      `the ${name} plugin's state directory ${path.join(stateDir, name)} is not a writable directory inside the command sandbox`,
    );
  } finally {
    await host.close();
    await sandbox.close();
    await rm(workingDir, { recursive: true, force: true });
    await rm(stateDir, { recursive: true, force: true });
  }
}
