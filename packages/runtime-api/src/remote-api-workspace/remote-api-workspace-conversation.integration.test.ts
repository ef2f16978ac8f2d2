import { RemoteAPIWorkspace } from '@agent-workspace/remote-api';
import { Agent, Conversation, RemoteConversation, ScriptedLLM } from '@agent-workspace/sdk';
import { expect, it } from 'vitest';
import { DockerRuntimeBackend } from '../backend/docker-runtime-backend.js';
import { remoteApiTestContext } from '../test-support/remote-api-test-context.js';
import { runtimeApiServerFixture } from '../test-support/runtime-api-server-fixture.js';

const context = remoteApiTestContext();

context.describe('a Conversation over a RemoteAPIWorkspace', () => {
  const runtimeApi = runtimeApiServerFixture(context, {
    backend: new DockerRuntimeBackend({ namespace: context.namespace }),
  });

  it('runs on the session agent-server (a remote conversation)', async () => {
    await using workspace = await RemoteAPIWorkspace.create({
      runtimeApiUrl: runtimeApi.server.url,
      runtimeApiKey: runtimeApi.apiKey,
      image: context.image,
    });
    const llm = new ScriptedLLM({
      script: [
        {
          toolCalls: [
            { name: 'terminal', arguments: { command: 'echo made-remotely > made.txt' } },
          ],
        },
        { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] },
      ],
    });
    const agent = new Agent({ llm, tools: ['TerminalTool'] });
    await using conversation = await Conversation({ agent, workspace });
    expect(conversation).toBeInstanceOf(RemoteConversation);
    await conversation.sendMessage('Write made.txt.');
    expect(await conversation.run()).toBe('finished');
    expect(await conversation.agentFinalResponse()).toBe('done');
    const made = await workspace.executeCommand('cat made.txt');
    expect(made.stdout).toBe('made-remotely\n');
  }, 180_000);
});
