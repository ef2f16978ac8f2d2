import {
  type CommandResult,
  LocalWorkspace,
  type Workspace,
  WorkspaceError,
} from '@agent-workspace/core';

export async function run(command: string): Promise<CommandResult> {
  await using workspace: Workspace = new LocalWorkspace({ workingDir: '/tmp' });
  try {
    return await workspace.executeCommand(command, { timeoutMs: 1_000 });
  } catch (error) {
    if (error instanceof WorkspaceError && error.code === 'INVALID_CWD') throw error;
    throw error;
  }
}
