import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Agent } from '../agent/agent.js';
import { INTERRUPTED_CALL_RESULT } from '../agent/build-transcript.js';
import { RollingWindowCondenser } from '../condenser/condenser.js';
import type { LanguageModel } from '../llm/language-model.js';
import { ScriptedLLM } from '../llm/scripted-llm.js';
import { useConversationTempWorkspace } from '../test-support/conversation-temp-workspace.js';
import { finish, ofKind, scriptedAgent, terminal } from '../test-support/scripted-conversation.js';
import { LocalConversation } from './local-conversation.js';
import type { LocalConversationOptions } from './local-conversation-options.js';

const temp = useConversationTempWorkspace('confirmation-paths-');
const marker = () => path.join(temp.workingDir, 'ran.txt');
const ALWAYS = { confirmationPolicy: { kind: 'AlwaysConfirm' } } as const;

/** A conversation whose first step holds `touch ran.txt` (AlwaysConfirm unless told). */
async function waiting(
  steps: Parameters<typeof scriptedAgent>[0] = [
    { toolCalls: [terminal('touch ran.txt')] },
    { toolCalls: [finish('done')] },
  ],
  options: Partial<LocalConversationOptions> = ALWAYS,
  agentOptions: Parameters<typeof scriptedAgent>[1] = undefined,
) {
  const scripted = scriptedAgent(steps, agentOptions);
  const conversation = await LocalConversation.create({
    agent: scripted.agent,
    workspace: temp.workspace,
    ...options,
  });
  await conversation.sendMessage('go');
  expect(await conversation.run()).toBe('waiting_for_confirmation');
  return { conversation, llm: scripted.llm };
}

// Every path that could run an action held for confirmation without an acceptance.
describe('LocalConversation: held actions run only once accepted', () => {
  it('a user message and a run() while waiting run nothing and call no model', async () => {
    const { conversation, llm } = await waiting();
    await using _ = conversation;
    await conversation.sendMessage('just do it');
    expect(await conversation.run()).toBe('waiting_for_confirmation');
    expect(existsSync(marker())).toBe(false);
    expect(llm.requests).toHaveLength(1);
  });

  it('switching the policy to NeverConfirm, or the model, while waiting runs nothing', async () => {
    const { conversation, llm } = await waiting();
    await using _ = conversation;
    await conversation.setConfirmationPolicy({ kind: 'NeverConfirm' });
    await conversation.switchLlm(new ScriptedLLM({ script: [{ text: 'other' }] }));
    expect(await conversation.run()).toBe('waiting_for_confirmation');
    expect(existsSync(marker())).toBe(false);
    expect(llm.requests).toHaveLength(1);
    // The held actions still wait for an answer.
    expect(await conversation.respondToConfirmation({ accept: false })).toBe('idle');
    expect(existsSync(marker())).toBe(false);
  });

  it('a fork of a waiting conversation never runs the held actions: the model reads them as not run', async () => {
    const { conversation } = await waiting();
    await using _ = conversation;
    const forked = scriptedAgent([{ text: 'ok' }]);
    await using fork = await conversation.fork({ agent: forked.agent });
    expect(fork.state.executionStatus).toBe('idle');
    await expect(fork.respondToConfirmation({ accept: true })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await fork.sendMessage('continue');
    expect(await fork.run()).toBe('finished');
    expect(existsSync(marker())).toBe(false);
    const tool = forked.llm.requests[0]!.messages.find((message) => message.role === 'tool');
    expect(tool?.content).toBe(INTERRUPTED_CALL_RESULT);
    // The source still holds them.
    expect(conversation.state.executionStatus).toBe('waiting_for_confirmation');
  });

  it("a fork keeps the source's policy and analyzer: its own actions wait too", async () => {
    const { conversation } = await waiting(undefined, {
      confirmationPolicy: { kind: 'ConfirmRisky', threshold: 'LOW' },
      securityAnalyzer: { kind: 'PatternSecurityAnalyzer' },
    });
    await using _ = conversation;
    // A ScriptedLLM answers by the assistant turns in the transcript: the copied one is the first.
    const forked = scriptedAgent([
      { toolCalls: [terminal('echo copied')] },
      { toolCalls: [terminal('touch ran.txt')] },
    ]);
    await using fork = await conversation.fork({ agent: forked.agent });
    expect(fork.confirmation).toEqual(conversation.confirmation);
    await fork.sendMessage('again');
    expect(await fork.run()).toBe('waiting_for_confirmation');
    expect(existsSync(marker())).toBe(false);
    // The fork's own options replace them.
    await using open = await conversation.fork({
      agent: scriptedAgent([{ text: 'ok' }]).agent,
      confirmationPolicy: { kind: 'NeverConfirm' },
      securityAnalyzer: null,
    });
    expect(open.confirmation).toEqual({ policy: { kind: 'NeverConfirm' }, securityAnalyzer: null });
  });

  it("an accept runs only the last response's actions, even when a model repeats its response ids", async () => {
    // A model (some local servers) answering every call with the same completion id.
    const sameId = (script: ConstructorParameters<typeof ScriptedLLM>[0]['script']) => {
      const inner = new ScriptedLLM({ script });
      const llm: LanguageModel = {
        model: inner.model,
        complete: async (request) => ({ ...(await inner.complete(request)), id: 'same-id' }),
      };
      return new Agent({ llm, tools: ['TerminalTool'] });
    };
    const source = await LocalConversation.create({
      agent: sameId([{ toolCalls: [terminal('touch ran.txt')] }]),
      workspace: temp.workspace,
      ...ALWAYS,
    });
    await using _ = source;
    await source.sendMessage('go');
    expect(await source.run()).toBe('waiting_for_confirmation');
    // The fork copies the unanswered `touch ran.txt`; its own step holds `touch fork.txt`.
    await using fork = await source.fork({
      agent: sameId([
        { toolCalls: [terminal('echo copied')] },
        { toolCalls: [terminal('touch fork.txt')] },
        { text: 'done' },
      ]),
    });
    await fork.sendMessage('go on');
    expect(await fork.run()).toBe('waiting_for_confirmation');
    expect(await fork.respondToConfirmation({ accept: true })).toBe('finished');
    expect(existsSync(path.join(temp.workingDir, 'fork.txt'))).toBe(true);
    expect(existsSync(marker())).toBe(false);
  });

  it('condense() while waiting keeps the actions held, and runs none of them', async () => {
    const condenser = new RollingWindowCondenser({ maxSize: 100, keepFirst: 1 });
    const { conversation } = await waiting(undefined, ALWAYS, { condenser });
    await using _ = conversation;
    await conversation.condense().catch(() => undefined); // may have nothing to forget
    expect(await conversation.run()).toBe('waiting_for_confirmation');
    expect(existsSync(marker())).toBe(false);
    expect(await conversation.respondToConfirmation({ accept: true })).toBe('finished');
    expect(existsSync(marker())).toBe(true);
  });

  it('holds the whole step when only one of its actions is risky', async () => {
    const { conversation } = await waiting(
      [{ toolCalls: [terminal('touch ran.txt'), terminal('rm -rf /')] }],
      {
        confirmationPolicy: { kind: 'ConfirmRisky' },
        securityAnalyzer: { kind: 'PatternSecurityAnalyzer' },
      },
    );
    await using _ = conversation;
    expect(ofKind(conversation.events, 'ActionEvent').map((a) => a.security_risk)).toEqual([
      'LOW',
      'HIGH',
    ]);
    expect(existsSync(marker())).toBe(false);
    expect(await conversation.respondToConfirmation({ accept: false })).toBe('idle');
    expect(ofKind(conversation.events, 'UserRejectObservation')).toHaveLength(2);
  });

  it('an analyzer answering junk rates the action HIGH: ConfirmRisky holds it', async () => {
    const { conversation } = await waiting(undefined, {
      confirmationPolicy: { kind: 'ConfirmRisky', confirm_unknown: false },
      securityAnalyzer: () => 'SAFE' as never,
    });
    await using _ = conversation;
    expect(ofKind(conversation.events, 'ActionEvent')[0]?.security_risk).toBe('HIGH');
    expect(existsSync(marker())).toBe(false);
  });

  it('two racing accepts run the held actions once; an accept after a reject runs nothing', async () => {
    const count = path.join(temp.workingDir, 'count.txt');
    const { conversation } = await waiting([
      { toolCalls: [terminal('echo x >> count.txt')] },
      { text: 'done' },
    ]);
    await using _ = conversation;
    const answers = await Promise.allSettled([
      conversation.respondToConfirmation({ accept: true }),
      conversation.respondToConfirmation({ accept: true }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(answers.find((answer) => answer.status === 'rejected')).toMatchObject({
      reason: { code: 'NOT_FOUND' },
    });
    expect(await readFile(count, 'utf8')).toBe('x\n');

    const other = await waiting();
    await using __ = other.conversation;
    const [rejected, accepted] = await Promise.allSettled([
      other.conversation.respondToConfirmation({ accept: false }),
      other.conversation.respondToConfirmation({ accept: true }),
    ]);
    expect(rejected).toMatchObject({ status: 'fulfilled', value: 'idle' });
    expect(accepted).toMatchObject({ status: 'rejected', reason: { code: 'NOT_FOUND' } });
    // The next run shows the model the rejection; the rejected action never runs.
    expect(await other.conversation.run()).toBe('finished');
    expect(existsSync(marker())).toBe(false);
  });

  it('an interrupt during the accepted run stops the held actions not yet run', async () => {
    const { conversation } = await waiting([
      { toolCalls: [terminal('sleep 20'), terminal('touch ran.txt')] },
      { text: 'done' },
    ]);
    await using _ = conversation;
    const run = conversation.respondToConfirmation({ accept: true });
    while (conversation.state.executionStatus !== 'running') {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    await conversation.interrupt();
    expect(await run).toBe('paused');
    expect(existsSync(marker())).toBe(false);
    const errors = ofKind(conversation.events, 'AgentErrorEvent').map((event) => event.error);
    expect(errors).toEqual([
      'Interrupted: the run was paused while this call ran.',
      'Not run: the run was paused before this call.',
    ]);
  });
});
