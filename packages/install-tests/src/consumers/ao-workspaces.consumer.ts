import { clone, createAoWorkspace } from '@agent-workspace/ao-workspaces';

export async function pathOf(repo: string, sessionId: string): Promise<string> {
  const plugin = createAoWorkspace({ kind: 'worktree', root: '/tmp/ao-trees' });
  const info = await plugin.create({
    projectId: 'app',
    project: { path: repo, defaultBranch: 'main' },
    sessionId,
    branch: `agent/${sessionId}`,
  });
  return `${clone.manifest.name}: ${info.path}`;
}
