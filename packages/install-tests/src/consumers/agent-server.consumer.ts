import { type AgentServer, createAgentServer } from '@agent-workspace/agent-server';

export async function start(workingDir: string): Promise<AgentServer> {
  return createAgentServer({ port: 0, workingDir, sessionApiKeys: [] });
}
