import { RemoteAPIWorkspace, type RemoteAPIWorkspaceOptions } from '@agent-workspace/remote-api';

export async function open(options: RemoteAPIWorkspaceOptions): Promise<string> {
  await using workspace = await RemoteAPIWorkspace.create(options);
  return (await workspace.executeCommand('uname -a')).stdout;
}
