import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LocalWorkspace } from '@agent-workspace/core';
import { suiteSkipReason } from '@agent-workspace/core/testing';
import { PluginHost } from '@agent-workspace/runtime-plugins';
import type { ToolContext } from '../tools/tool.js';

/** A real local plugin host over a fresh temporary workspace, for plugin tool tests. */
export interface TestPluginHost {
  /** Why the suite cannot run here (a plugin failed to start: its missing requirement), or `undefined`. */
  skip: string | undefined;
  /** The workspace directory (symlinks resolved). */
  dir: string;
  workspace: LocalWorkspace;
  host: PluginHost;
  /** `{ workspace, actions: host }`, ready to pass to `execute`. */
  context: ToolContext;
  /** Closes the host and the workspace and removes the directory. */
  close(): Promise<void>;
}

/**
 * Starts `plugins` in a real `PluginHost` and waits until they are ready. A plugin that cannot
 * start here (no Chromium, no ipykernel) gives a loud `skip` reason, and throws under `CI=true`.
 */
export async function startTestPluginHost(
  suite: string,
  plugins: readonly string[],
): Promise<TestPluginHost> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'sdk-plugin-tools-')));
  const workspace = new LocalWorkspace({ workingDir: dir });
  const host = PluginHost.start({ plugins, workingDir: dir });
  let reason: string | undefined;
  for (const plugin of plugins) {
    reason ??= await host.whenReady(plugin).then(
      () => undefined,
      (error: unknown) => `the ${plugin} plugin cannot start here: ${(error as Error).message}`,
    );
  }
  const close = async (): Promise<void> => {
    await host.close();
    await workspace.close();
    await rm(dir, { recursive: true, force: true });
  };
  let skip: string | undefined;
  try {
    skip = suiteSkipReason(suite, reason);
  } catch (error) {
    await close();
    throw error;
  }
  return { skip, dir, workspace, host, context: { workspace, actions: host }, close };
}
