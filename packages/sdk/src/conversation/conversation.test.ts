import { createServer } from 'node:net';
import { RemoteWorkspace, type Workspace, WorkspaceError } from '@agent-workspace/core';
import { describe, expect, it } from 'vitest';
import { Agent } from '../agent/agent.js';
import { ScriptedLLM } from '../llm/scripted-llm.js';
import { toolTempWorkspace } from '../test-support/tool-temp-workspace.js';
import { Conversation } from './conversation.js';
import { LocalConversation } from './local-conversation.js';
import { RemoteConversation } from './remote-conversation.js';

function scriptedAgent(): Agent {
  return new Agent({
    llm: new ScriptedLLM({
      script: [{ toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] }],
    }),
    tools: [],
  });
}

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('Conversation()', () => {
  it('runs in process over a LocalWorkspace (no agent-server capability)', async () => {
    await using temp = await toolTempWorkspace();
    await using conversation = await Conversation({
      agent: scriptedAgent(),
      workspace: temp.workspace,
    });
    expect(conversation).toBeInstanceOf(LocalConversation);
    await conversation.sendMessage('hello');
    expect(await conversation.run()).toBe('finished');
    expect(await conversation.agentFinalResponse()).toBe('done');
  });

  it('goes to the agent-server of a RemoteWorkspace', async () => {
    const port = await closedPort();
    await using workspace = new RemoteWorkspace({
      host: `http://127.0.0.1:${port}`,
      workingDir: '/workspace',
    });
    // Nothing listens: the failure shows which path was taken and that it is a typed error.
    const error = await Conversation({ agent: scriptedAgent(), workspace }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(WorkspaceError.isInstance(error, 'CONNECTION_ERROR')).toBe(true);
    expect((error as WorkspaceError).details).toMatchObject({
      operation: 'POST /api/conversations',
    });
  });

  it('asks any workspace with agentServerEndpoint for its server, whatever its class', async () => {
    await using temp = await toolTempWorkspace();
    const asked: string[] = [];
    const custom = Object.assign(Object.create(temp.workspace) as Workspace, {
      kind: 'custom',
      agentServerEndpoint: async () => {
        asked.push('endpoint');
        throw new WorkspaceError({ code: 'NOT_SUPPORTED', message: 'custom endpoint reached' });
      },
    });
    const error = await Conversation({ agent: scriptedAgent(), workspace: custom }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(asked).toEqual(['endpoint']);
    expect(error).toMatchObject({ code: 'NOT_SUPPORTED', message: 'custom endpoint reached' });
  });

  it('RemoteConversation refuses a workspace without an agent-server', async () => {
    await using temp = await toolTempWorkspace();
    const error = await RemoteConversation.create({
      agent: scriptedAgent(),
      workspace: temp.workspace,
    }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((error as Error).message).toContain('workspace');
  });
});
