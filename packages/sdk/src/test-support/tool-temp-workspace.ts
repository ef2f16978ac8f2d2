import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LocalWorkspace } from '@agent-workspace/core';
import type { ToolContext } from '../tools/tool.js';

/** A real {@link LocalWorkspace} on a fresh temporary directory, for tool tests. */
export interface ToolTempWorkspace extends AsyncDisposable {
  /** The workspace's working directory (symlinks resolved). */
  dir: string;
  workspace: LocalWorkspace;
  /** `{ workspace }`, ready to pass to `execute`. */
  context: ToolContext;
}

/**
 * Makes a temporary directory and a `LocalWorkspace` on it; disposing closes the workspace and
 * removes the directory.
 */
export async function toolTempWorkspace(): Promise<ToolTempWorkspace> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'sdk-tools-')));
  const workspace = new LocalWorkspace({ workingDir: dir });
  return {
    dir,
    workspace,
    context: { workspace },
    async [Symbol.asyncDispose]() {
      await workspace.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
