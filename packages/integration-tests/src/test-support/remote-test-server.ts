import { startTestServer, type TestServer } from '@agent-workspace/agent-server/testing';
import { RemoteWorkspace } from '@agent-workspace/core';
import { Agent, type AgentOptions, ScriptedLLM } from '@agent-workspace/sdk';
import { afterAll, beforeAll } from 'vitest';

/** An agent-server for a suite and a {@link RemoteWorkspace} on it. */
export interface RemoteTestServer {
  server: TestServer;
  workspace: RemoteWorkspace;
}

/**
 * Registers `beforeAll`/`afterAll` hooks that start an agent-server taking `apiKey` and open a
 * `RemoteWorkspace` on its directory, then close both; the returned object's fields are set once
 * started.
 */
export function useRemoteTestServer(apiKey: string): RemoteTestServer {
  const remote = {} as RemoteTestServer;
  beforeAll(async () => {
    remote.server = await startTestServer({ sessionApiKeys: [apiKey] });
    remote.workspace = new RemoteWorkspace({
      host: remote.server.url,
      workingDir: remote.server.dir,
      apiKey,
    });
  });
  afterAll(async () => {
    await remote.workspace?.close();
    await remote.server?.close();
  });
  return remote;
}

/** A scripted agent: each command with the terminal, then finish; `options` add to the agent. */
export function scriptedTerminalAgent(
  commands: string[],
  options: Partial<Omit<AgentOptions, 'llm' | 'tools'>> = {},
): Agent {
  return new Agent({
    llm: new ScriptedLLM({
      script: [
        ...commands.map((command) => ({
          toolCalls: [{ name: 'terminal', arguments: { command } }],
        })),
        { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] },
      ],
    }),
    tools: ['TerminalTool'],
    ...options,
  });
}
