import { PluginHost, type RuntimePlugin } from '@agent-workspace/runtime-plugins';

export const echoPlugin: RuntimePlugin = {
  name: 'echo',
  requirements: [],
  capabilities: [],
  actions: {},
  initialize: async () => {},
  health: async () => ({ healthy: true }),
  close: async () => {},
};

export async function stateOf(workingDir: string): Promise<string | undefined> {
  await using host = PluginHost.start({ plugins: [echoPlugin], workingDir });
  await host.loaded;
  return (await host.status())[0]?.state;
}
