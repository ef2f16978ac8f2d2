import { createRuntimeApiServer, DockerRuntimeBackend } from '@agent-workspace/runtime-api';

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
