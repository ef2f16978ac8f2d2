import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { Agent, RemoteConversation, ScriptedLLM } from '@agent-workspace/sdk';
import { describe, expect, it } from 'vitest';
import { useRemoteTestServer } from '../test-support/remote-test-server.js';

const API_KEY = 'remote-secrets-test-key';
const TOKEN = 'sdk_remote_secret_value_77';

describe('RemoteConversation.updateSecrets against the agent-server', () => {
  const remote = useRemoteTestServer(API_KEY);

  it('sends the secrets; the command gets them, the events show the mask', async () => {
    const agent = new Agent({
      llm: new ScriptedLLM({
        script: [
          {
            toolCalls: [
              {
                name: 'terminal',
                arguments: {
                  command: 'printf %s "$SDK_TOKEN" > sdk-secret.txt; echo "$SDK_TOKEN"',
                },
              },
            ],
          },
          { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] },
        ],
      }),
      tools: ['TerminalTool'],
    });
    await using conversation = await RemoteConversation.create({
      agent,
      workspace: remote.workspace,
    });
    await conversation.updateSecrets({
      SDK_TOKEN: { kind: 'StaticSecret', value: TOKEN, description: 'for the test' },
    });
    await conversation.sendMessage('go');
    expect(await conversation.run()).toBe('finished');
    expect(await readFile(path.join(remote.server.dir, 'sdk-secret.txt'), 'utf8')).toBe(TOKEN);
    const events = JSON.stringify([...conversation.events]);
    expect(events).not.toContain(TOKEN);
    expect(events).toContain('<secret-hidden>');
  });

  it('refuses a reserved name before sending, naming the field', async () => {
    const agent = new Agent({ llm: new ScriptedLLM({ script: [] }), tools: ['TerminalTool'] });
    await using conversation = await RemoteConversation.create({
      agent,
      workspace: remote.workspace,
    });
    const error = await conversation.updateSecrets({ PATH: '/tmp/x' }).catch((e: unknown) => e);
    expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as WorkspaceError).message).toContain('secrets.PATH');
  });
});
