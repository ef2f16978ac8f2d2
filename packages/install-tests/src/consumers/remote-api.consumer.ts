import { RemoteAPIWorkspace, type RemoteAPIWorkspaceOptions } from '@agent-workspace/remote-api';
import { createRuntimeApiServer, DockerRuntimeBackend } from '@agent-workspace/remote-api/server';

export async function open(options: RemoteAPIWorkspaceOptions): Promise<string> {
  await using workspace = await RemoteAPIWorkspace.create(options);
  return (await workspace.executeCommand('uname -a')).stdout;
}

export async function serve(apiKey: string, sessionKeySecret: string): Promise<string> {
  await using server = await createRuntimeApiServer({
    apiKeys: [apiKey],
    sessionKeySecret,
    backend: new DockerRuntimeBackend(),
    images: ['agent-workspace/agent-server:dev'],
    port: 0,
  });
  return server.url;
}
