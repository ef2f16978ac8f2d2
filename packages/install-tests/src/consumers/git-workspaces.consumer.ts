import { GitWorkspace } from '@agent-workspace/git-workspaces';

export async function branchOf(repo: string, sessionId: string): Promise<string> {
  await using workspace = await GitWorkspace.create({
    kind: 'worktree',
    project: { path: repo, defaultBranch: 'main' },
    sessionId,
    branch: `agent/${sessionId}`,
  });
  return (await workspace.executeCommand('git branch --show-current')).stdout;
}
