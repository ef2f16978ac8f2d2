import { inspect } from 'node:util';
import { Agent, Conversation, RemoteConversation, ScriptedLLM } from '@agent-workspace/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { ProcessSandboxWorkspace } from '../test-support/process-sandbox-workspace.js';

const workspaces: ProcessSandboxWorkspace[] = [];
afterEach(async () => {
  for (const workspace of workspaces.splice(0)) await workspace.close();
});

/** A SandboxWorkspace (the template DockerWorkspace extends) whose sandbox is a child process. */
function sandboxWorkspace(): ProcessSandboxWorkspace {
  const workspace = new ProcessSandboxWorkspace();
  workspaces.push(workspace);
  return workspace;
}

describe('the agent-server capability of a SandboxWorkspace', () => {
  it('starts the sandbox and gives its host and key, the key hidden from inspect', async () => {
    const workspace = sandboxWorkspace();
    expect(workspace.status).toBe('new');
    const endpoint = await workspace.agentServerEndpoint();
    expect(workspace.status).toBe('ready');
    expect(endpoint.host).toBe(workspace.host);
    expect(endpoint.apiKey).toMatch(/^[0-9a-f]{64}$/);
    expect(inspect(endpoint)).not.toContain(endpoint.apiKey);
    expect(JSON.stringify(endpoint)).not.toContain(endpoint.apiKey);
  });

  it('Conversation() runs the agent on the sandbox agent-server', async () => {
    const workspace = sandboxWorkspace();
    const agent = new Agent({
      llm: new ScriptedLLM({
        script: [{ toolCalls: [{ name: 'finish', arguments: { message: 'sandboxed' } }] }],
      }),
      tools: [],
    });
    await using conversation = await Conversation({ agent, workspace });
    expect(conversation).toBeInstanceOf(RemoteConversation);
    await conversation.sendMessage('hi');
    expect(await conversation.run()).toBe('finished');
    expect(await conversation.agentFinalResponse()).toBe('sandboxed');
  });
});
