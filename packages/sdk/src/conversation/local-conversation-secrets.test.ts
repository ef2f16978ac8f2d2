import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { SECRET_MASK } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import { Agent } from '../agent/agent.js';
import { recordingModel } from '../agent/test-support/recording-model.js';
import { ScriptedLLM } from '../llm/scripted-llm.js';
import { ConversationSecrets } from '../secrets/conversation-secrets.js';
import { useConversationTempWorkspace } from '../test-support/conversation-temp-workspace.js';
import { terminal } from '../test-support/scripted-conversation.js';
import { LocalConversation } from './local-conversation.js';

const TOKEN = 'tok_9f8e7d6c5b4a-SECRET-value';
const TOKEN_B64 = Buffer.from(`${TOKEN}\n`).toString('base64');
const TOKEN_B64_HEAD = Buffer.from(TOKEN).toString('base64').slice(0, 24);

const temp = useConversationTempWorkspace('conversation-secrets-');

/** Every file under `dir`, read as text. */
async function allFiles(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(
    entries
      .filter((entry) => entry.isFile())
      .map((entry) => readFile(path.join(entry.parentPath, entry.name), 'utf8')),
  );
  return texts.join('\n');
}

function expectNoSecret(text: string): void {
  expect(text).not.toContain(TOKEN);
  expect(text).not.toContain(TOKEN_B64);
  expect(text).not.toContain(TOKEN_B64_HEAD);
  expect(text).not.toContain(Buffer.from(TOKEN).toString('hex'));
}

describe('LocalConversation secrets', () => {
  it('gives a secret to commands and keeps it out of events, files and the transcript', async () => {
    const llm = recordingModel(
      new ScriptedLLM({
        script: [
          { toolCalls: [terminal('echo $MY_TOKEN | base64')] },
          { toolCalls: [terminal('env')] },
          {
            toolCalls: [
              terminal('printf %s "$MY_TOKEN" > delivered.txt; echo "$MY_TOKEN" | xxd -p'),
            ],
          },
          { text: 'done' },
        ],
      }),
    );
    const agent = new Agent({ llm, tools: ['TerminalTool'] });
    const conversation = await LocalConversation.create({
      agent,
      workspace: temp.workspace,
      persistenceDir: temp.persistenceDir,
    });
    await conversation.updateSecrets({ MY_TOKEN: { kind: 'StaticSecret', value: TOKEN } });
    await conversation.sendMessage('use the token');
    expect(await conversation.run()).toBe('finished');
    // Delivered: the command wrote the value itself.
    expect(await readFile(path.join(temp.workingDir, 'delivered.txt'), 'utf8')).toBe(TOKEN);

    const events = JSON.stringify([...conversation.events]);
    expectNoSecret(events);
    // The encodings were there, masked.
    const outputs = [...conversation.events].flatMap((event) =>
      event.kind === 'ObservationEvent' ? [JSON.stringify(event.observation)] : [],
    );
    expect(outputs).toHaveLength(3);
    for (const output of outputs) expect(output).toContain(SECRET_MASK);
    // `env` shows the variable (exported for the session), masked.
    expect(outputs[1]).toContain(`MY_TOKEN=${SECRET_MASK}`);

    for (const request of llm.requests) expectNoSecret(JSON.stringify(request.messages));
    // The model is told the secret's name (never its value) in the system prompt.
    const system = llm.requests[0]!.messages[0]!;
    expect(system.role).toBe('system');
    expect(JSON.stringify(system.content)).toContain('$MY_TOKEN');
    await conversation.close();
    expectNoSecret(await allFiles(temp.persistenceDir));
  });

  it('masks a value the model itself writes, in the action and its output', async () => {
    // In memory only: the scripted model's own config (which holds the value) is not persisted.
    const script = [{ toolCalls: [terminal(`echo ${TOKEN} typed`)] }, { text: 'done' }];
    const llm = recordingModel(new ScriptedLLM({ script }));
    const conversation = await LocalConversation.create({
      agent: new Agent({ llm, tools: ['TerminalTool'] }),
      workspace: temp.workspace,
    });
    await conversation.updateSecrets({ MY_TOKEN: TOKEN });
    await conversation.sendMessage('go');
    await conversation.run();
    const events = [...conversation.events];
    expectNoSecret(JSON.stringify(events));
    const action = events.find((event) => event.kind === 'ActionEvent');
    expect(JSON.stringify(action)).toContain(`echo ${SECRET_MASK} typed`);
    expectNoSecret(JSON.stringify(llm.requests.at(-1)!.messages));
    await conversation.close();
  });

  it('is kept in memory only: a reopened conversation needs the secret again', async () => {
    const script = [
      { toolCalls: [terminal('printf "[%s]" "$MY_TOKEN" > seen.txt')] },
      { text: 'done' },
    ];
    const first = await LocalConversation.create({
      agent: new Agent({ llm: new ScriptedLLM({ script }), tools: ['TerminalTool'] }),
      workspace: temp.workspace,
      persistenceDir: temp.persistenceDir,
    });
    await first.updateSecrets({ MY_TOKEN: TOKEN });
    await first.close();
    expectNoSecret(await allFiles(temp.persistenceDir));
    const reopened = await LocalConversation.open({
      agent: new Agent({ llm: new ScriptedLLM({ script }), tools: ['TerminalTool'] }),
      workspace: temp.workspace,
      persistenceDir: temp.persistenceDir,
    });
    await reopened.sendMessage('go');
    await reopened.run();
    expect(await readFile(path.join(temp.workingDir, 'seen.txt'), 'utf8')).toBe('[]');
    await reopened.close();
  });

  it('shares a registry passed in, and a new value wins over the one the session exported', async () => {
    const secrets = new ConversationSecrets();
    secrets.update({ MY_TOKEN: 'first-value-1234' });
    const script = [
      { toolCalls: [terminal('echo "$MY_TOKEN" > one.txt')] },
      { toolCalls: [terminal('echo "$MY_TOKEN" > two.txt')] },
      { text: 'done' },
    ];
    const conversation = await LocalConversation.create({
      agent: new Agent({ llm: new ScriptedLLM({ script }), tools: ['TerminalTool'] }),
      workspace: temp.workspace,
      secrets,
    });
    await conversation.sendMessage('go');
    const run = conversation.run();
    // Replaced while the run goes on: the second command gets the new value.
    await conversation.updateSecrets({ MY_TOKEN: 'second-value-5678' });
    await run;
    const one = await readFile(path.join(temp.workingDir, 'one.txt'), 'utf8');
    const two = await readFile(path.join(temp.workingDir, 'two.txt'), 'utf8');
    expect([one.trim(), two.trim()]).toContain('second-value-5678');
    expect(two.trim()).toBe('second-value-5678');
    const events = JSON.stringify([...conversation.events]);
    expect(events).not.toContain('first-value-1234');
    expect(events).not.toContain('second-value-5678');
    await conversation.close();
  });

  it('refuses a reserved name, naming it', async () => {
    const conversation = await LocalConversation.create({
      agent: new Agent({ llm: new ScriptedLLM({ script: [] }), tools: ['TerminalTool'] }),
      workspace: temp.workspace,
    });
    await expect(conversation.updateSecrets({ LD_PRELOAD: '/tmp/evil.so' })).rejects.toThrow(
      WorkspaceError,
    );
    await expect(conversation.updateSecrets({ PATH: '/tmp' })).rejects.toThrow(/secrets\.PATH/);
    await conversation.close();
  });
});
