import { DockerWorkspace, type DockerWorkspaceOptions } from '@agent-workspace/docker';

export async function open(options: DockerWorkspaceOptions): Promise<string> {
  await using workspace = await DockerWorkspace.create(options);
  return (await workspace.executeCommand('uname -a')).stdout;
}
