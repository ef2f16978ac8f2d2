import { describeWorkspaceContract } from '@agent-workspace/core/testing';
import { ProcessSandboxWorkspace } from '../test-support/process-sandbox-workspace.js';

/**
 * The workspace contract through the SandboxWorkspace template: every operation is delegated
 * to the inner RemoteWorkspace of an agent-server child process, and pause/resume are real
 * (SIGSTOP/SIGCONT).
 */
describeWorkspaceContract('SandboxWorkspace (agent-server process)', async () => {
  const workspace = new ProcessSandboxWorkspace();
  await workspace.start();
  return workspace;
});
