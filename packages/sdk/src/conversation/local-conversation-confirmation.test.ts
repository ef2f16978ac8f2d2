import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import type { ScriptedStep } from '../llm/scripted-llm.js';
import { useConversationTempWorkspace } from '../test-support/conversation-temp-workspace.js';
import {
  finish,
  ofKind,
  scriptedAgent,
  statuses,
  terminal,
} from '../test-support/scripted-conversation.js';
import { LocalConversation } from './local-conversation.js';
import type { LocalConversationOptions } from './local-conversation-options.js';

const temp = useConversationTempWorkspace('confirmation-');

function start(agent: Agent, options: Partial<LocalConversationOptions> = {}) {
  return LocalConversation.create({ agent, workspace: temp.workspace, ...options });
}

const marker = () => path.join(temp.workingDir, 'ran.txt');

describe('LocalConversation confirmation mode', () => {
  it('is NeverConfirm without an analyzer by default: actions run at once, rated UNKNOWN', async () => {
    const { agent } = scriptedAgent([
      { toolCalls: [terminal('touch ran.txt')] },
      { toolCalls: [finish('ok')] },
    ]);
    await using conversation = await start(agent);
    expect(conversation.confirmation).toEqual({
      policy: { kind: 'NeverConfirm' },
      securityAnalyzer: null,
    });
    await conversation.sendMessage('go');
    expect(await conversation.run()).toBe('finished');
    expect(existsSync(marker())).toBe(true);
    expect(ofKind(conversation.events, 'ActionEvent')[0]?.security_risk).toBe('UNKNOWN');
  });

  it('records each new policy and analyzer as a state update event', async () => {
    const { agent } = scriptedAgent([{ toolCalls: [finish('ok')] }]);
    await using conversation = await start(agent);
    await conversation.setConfirmationPolicy({ kind: 'ConfirmRisky', threshold: 'MEDIUM' });
    await conversation.setSecurityAnalyzer({ kind: 'PatternSecurityAnalyzer' });
    const updates = ofKind(conversation.events, 'ConversationStateUpdateEvent').map(
      ({ key, value }) => ({ key, value }),
    );
    expect(updates).toEqual([
      {
        key: 'confirmation_policy',
        value: expect.objectContaining({ kind: 'ConfirmRisky', threshold: 'MEDIUM' }),
      },
      { key: 'security_analyzer', value: { kind: 'PatternSecurityAnalyzer' } },
    ]);
  });

  it('AlwaysConfirm: records the action, runs nothing, waits; accepted, it runs and the run goes on', async () => {
    const { agent, llm } = scriptedAgent([
      { text: 'creating it', toolCalls: [terminal('touch ran.txt')] },
      { toolCalls: [finish('done')] },
    ]);
    await using conversation = await start(agent, {
      confirmationPolicy: { kind: 'AlwaysConfirm' },
    });
    await conversation.sendMessage('make the file');
    expect(await conversation.run()).toBe('waiting_for_confirmation');
    expect(conversation.state.executionStatus).toBe('waiting_for_confirmation');
    expect(existsSync(marker())).toBe(false);
    const [action] = ofKind(conversation.events, 'ActionEvent');
    expect(action).toMatchObject({ tool_name: 'terminal', security_risk: 'UNKNOWN' });
    expect(ofKind(conversation.events, 'ObservationEvent')).toEqual([]);
    expect(statuses(conversation.events)).toEqual(['running', 'waiting_for_confirmation']);
    expect(llm.requests).toHaveLength(1);

    // A bare run() is no confirmation: nothing runs, no model call.
    expect(await conversation.run()).toBe('waiting_for_confirmation');
    expect(existsSync(marker())).toBe(false);
    expect(llm.requests).toHaveLength(1);

    expect(await conversation.respondToConfirmation({ accept: true })).toBe('finished');
    expect(existsSync(marker())).toBe(true);
    const [observation] = ofKind(conversation.events, 'ObservationEvent');
    expect(observation).toMatchObject({
      action_id: action!.id,
      tool_call_id: action!.tool_call_id,
    });
    // The finish step that followed was confirmed? A lone finish never waits.
    expect(ofKind(conversation.events, 'ActionEvent').map((event) => event.tool_name)).toEqual([
      'terminal',
      'finish',
    ]);
    expect(llm.requests).toHaveLength(2);
  });

  it('a rejected action never runs: each gets a UserRejectObservation the model reads, status idle', async () => {
    const { agent, llm } = scriptedAgent([
      { toolCalls: [terminal('touch ran.txt'), terminal('touch ran2.txt')] },
      { text: 'understood, I stop' },
    ]);
    await using conversation = await start(agent, {
      confirmationPolicy: { kind: 'AlwaysConfirm' },
    });
    await conversation.sendMessage('make the file');
    expect(await conversation.run()).toBe('waiting_for_confirmation');
    expect(
      await conversation.respondToConfirmation({ accept: false, reason: 'not in this repo' }),
    ).toBe('idle');
    const actions = ofKind(conversation.events, 'ActionEvent');
    const rejections = ofKind(conversation.events, 'UserRejectObservation');
    expect(rejections).toHaveLength(2);
    expect(rejections.map((event) => event.action_id)).toEqual(actions.map((event) => event.id));
    expect(rejections[0]).toMatchObject({
      source: 'environment',
      rejection_reason: 'not in this repo',
      rejection_source: 'user',
      tool_name: 'terminal',
    });
    expect(existsSync(marker())).toBe(false);

    // Nothing is pending any more; the next run asks the model, which is told of the rejection.
    await expect(conversation.respondToConfirmation({ accept: true })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await conversation.run()).toBe('finished');
    const tool = llm.requests[1]!.messages.filter((message) => message.role === 'tool');
    expect(tool.map((message) => message.content)).toEqual([
      'Action rejected: not in this repo',
      'Action rejected: not in this repo',
    ]);
    expect(existsSync(marker())).toBe(false);
    expect(existsSync(path.join(temp.workingDir, 'ran2.txt'))).toBe(false);
  });

  it('ConfirmRisky with the pattern analyzer lets a LOW action through and stops a HIGH one', async () => {
    const { agent } = scriptedAgent([
      { toolCalls: [terminal('touch ran.txt')] },
      { toolCalls: [terminal('touch gone.txt && rm -rf ~/')] },
      { toolCalls: [finish('done')] },
    ]);
    await using conversation = await start(agent, {
      confirmationPolicy: { kind: 'ConfirmRisky' },
      securityAnalyzer: { kind: 'PatternSecurityAnalyzer' },
    });
    expect(conversation.confirmation).toEqual({
      policy: { kind: 'ConfirmRisky', threshold: 'HIGH', confirm_unknown: true },
      securityAnalyzer: { kind: 'PatternSecurityAnalyzer' },
    });
    await conversation.sendMessage('go');
    expect(await conversation.run()).toBe('waiting_for_confirmation');
    expect(existsSync(marker())).toBe(true);
    expect(existsSync(path.join(temp.workingDir, 'gone.txt'))).toBe(false);
    expect(ofKind(conversation.events, 'ActionEvent').map((event) => event.security_risk)).toEqual([
      'LOW',
      'HIGH',
    ]);
    await conversation.respondToConfirmation({ accept: false });
    expect(ofKind(conversation.events, 'UserRejectObservation')[0]?.rejection_reason).toBe(
      'User rejected the action.',
    );
  });

  it('ConfirmRisky threshold MEDIUM stops a network fetch; confirm_unknown false lets UNKNOWN through', async () => {
    const { agent } = scriptedAgent([{ toolCalls: [terminal('curl https://example.invalid/x')] }]);
    await using conversation = await start(agent, {
      confirmationPolicy: { kind: 'ConfirmRisky', threshold: 'MEDIUM' },
      securityAnalyzer: { kind: 'PatternSecurityAnalyzer' },
    });
    await conversation.sendMessage('go');
    expect(await conversation.run()).toBe('waiting_for_confirmation');

    const second = scriptedAgent([{ toolCalls: [terminal('touch ran.txt')] }, { text: 'done' }]);
    await using unknown = await start(second.agent, {
      confirmationPolicy: { kind: 'ConfirmRisky', confirm_unknown: false },
    });
    await unknown.sendMessage('go');
    expect(await unknown.run()).toBe('finished');
    expect(existsSync(marker())).toBe(true);
  });

  it('takes your own analyzer (a function); one that throws rates the action HIGH', async () => {
    const seen: string[] = [];
    const { agent } = scriptedAgent([
      { toolCalls: [terminal('echo one')] },
      { toolCalls: [terminal('echo two')] },
    ]);
    await using conversation = await start(agent, {
      confirmationPolicy: { kind: 'ConfirmRisky', threshold: 'MEDIUM' },
      securityAnalyzer: (action, context) => {
        seen.push(`${action.tool_name}@${context.workingDir}`);
        if (action.tool_call.arguments.includes('two')) throw new Error('boom');
        return 'LOW';
      },
    });
    expect(conversation.confirmation.securityAnalyzer).toEqual({ kind: 'CustomSecurityAnalyzer' });
    await conversation.sendMessage('go');
    expect(await conversation.run()).toBe('waiting_for_confirmation');
    expect(seen).toEqual([`terminal@${temp.workingDir}`, `terminal@${temp.workingDir}`]);
    expect(ofKind(conversation.events, 'ActionEvent').map((event) => event.security_risk)).toEqual([
      'LOW',
      'HIGH',
    ]);
  });

  it('setConfirmationPolicy / setSecurityAnalyzer change what the next step does', async () => {
    const { agent } = scriptedAgent([
      { toolCalls: [terminal('touch ran.txt')] },
      { toolCalls: [terminal('touch second.txt')] },
      { text: 'done' },
    ]);
    await using conversation = await start(agent);
    await conversation.setConfirmationPolicy({ kind: 'AlwaysConfirm' });
    await conversation.setSecurityAnalyzer({ kind: 'PatternSecurityAnalyzer' });
    await conversation.sendMessage('go');
    expect(await conversation.run()).toBe('waiting_for_confirmation');
    expect(existsSync(marker())).toBe(false);
    expect(ofKind(conversation.events, 'ActionEvent')[0]?.security_risk).toBe('LOW');
    await conversation.setConfirmationPolicy({ kind: 'NeverConfirm' });
    await conversation.setSecurityAnalyzer(null);
    // Held actions stay held until answered, whatever the policy became.
    expect(await conversation.run()).toBe('waiting_for_confirmation');
    expect(existsSync(marker())).toBe(false);
    expect(await conversation.respondToConfirmation({ accept: true })).toBe('finished');
    expect(existsSync(marker())).toBe(true);
    expect(existsSync(path.join(temp.workingDir, 'second.txt'))).toBe(true);
    expect(ofKind(conversation.events, 'ActionEvent')[1]?.security_risk).toBe('UNKNOWN');
  });

  it('refuses bad policies and analyzers naming the field', async () => {
    const { agent } = scriptedAgent([]);
    await expect(
      start(agent, { confirmationPolicy: { kind: 'SometimesConfirm' } as never }),
    ).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('unknown confirmation policy kind "SometimesConfirm"'),
    });
    await using conversation = await start(agent);
    const bad = [
      [{ kind: 'ConfirmRisky', threshold: 'UNKNOWN' }, 'policy.threshold'],
      [{ kind: 'ConfirmRisky', threshold: 'EXTREME' }, 'policy.threshold'],
      [{ kind: 'AlwaysConfirm', extra: 1 }, 'policy'],
      [null, 'policy'],
    ] as const;
    for (const [policy, field] of bad) {
      const error = await conversation.setConfirmationPolicy(policy as never).catch((e) => e);
      expect(WorkspaceError.isInstance(error), JSON.stringify(policy)).toBe(true);
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field } });
    }
    await expect(conversation.setSecurityAnalyzer({ kind: 'LLMSecurityAnalyzer' })).rejects.toThrow(
      /not supported security analyzer kind "LLMSecurityAnalyzer"/,
    );
    await expect(conversation.setSecurityAnalyzer({ kind: 'Nope' })).rejects.toThrow(
      /unknown security analyzer kind "Nope"/,
    );
    expect(conversation.confirmation.policy).toEqual({ kind: 'NeverConfirm' });
  });

  it('refuses a response with nothing pending, and an oversized reason', async () => {
    const { agent } = scriptedAgent([{ toolCalls: [terminal('touch ran.txt')] }]);
    await using conversation = await start(agent, {
      confirmationPolicy: { kind: 'AlwaysConfirm' },
    });
    await expect(conversation.respondToConfirmation({ accept: false })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'no actions are waiting for confirmation',
    });
    await conversation.sendMessage('go');
    await conversation.run();
    await expect(
      conversation.respondToConfirmation({ accept: false, reason: 'x'.repeat(4097) }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'reason' } });
    expect(conversation.state.executionStatus).toBe('waiting_for_confirmation');
  });

  it('survives close and reopen while waiting: still held, never run, then accepted', async () => {
    const script: ScriptedStep[] = [
      { toolCalls: [terminal('touch ran.txt')] },
      { toolCalls: [finish('done')] },
    ];
    const first = scriptedAgent(script);
    const conversation = await start(first.agent, {
      persistenceDir: temp.persistenceDir,
      confirmationPolicy: { kind: 'ConfirmRisky', threshold: 'LOW' },
      securityAnalyzer: { kind: 'PatternSecurityAnalyzer' },
    });
    await conversation.sendMessage('go');
    expect(await conversation.run()).toBe('waiting_for_confirmation');
    await conversation.close();
    const state = JSON.parse(await readFile(path.join(temp.persistenceDir, 'state.json'), 'utf8'));
    expect(state).toMatchObject({
      execution_status: 'waiting_for_confirmation',
      confirmation_policy: { kind: 'ConfirmRisky', threshold: 'LOW', confirm_unknown: true },
      security_analyzer: { kind: 'PatternSecurityAnalyzer' },
    });

    // The script starts over in a new model: its first step is the one already taken.
    const second = scriptedAgent(script.slice(1));
    await using reopened = await LocalConversation.open({
      agent: second.agent,
      workspace: temp.workspace,
      persistenceDir: temp.persistenceDir,
    });
    expect(reopened.state.executionStatus).toBe('waiting_for_confirmation');
    expect(reopened.confirmation.policy).toMatchObject({ kind: 'ConfirmRisky', threshold: 'LOW' });
    expect(await reopened.run()).toBe('waiting_for_confirmation');
    expect(existsSync(marker())).toBe(false);
    expect(second.llm.requests).toHaveLength(0);
    expect(await reopened.respondToConfirmation({ accept: true })).toBe('finished');
    expect(existsSync(marker())).toBe(true);
  });

  it('an analyzer given in code must be given again to open()', async () => {
    const { agent } = scriptedAgent([]);
    const conversation = await start(agent, {
      persistenceDir: temp.persistenceDir,
      securityAnalyzer: () => 'LOW',
    });
    await conversation.close();
    await expect(
      LocalConversation.open({
        agent,
        workspace: temp.workspace,
        persistenceDir: temp.persistenceDir,
      }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'securityAnalyzer' } });
    await using reopened = await LocalConversation.open({
      agent,
      workspace: temp.workspace,
      persistenceDir: temp.persistenceDir,
      securityAnalyzer: null,
    });
    expect(reopened.confirmation.securityAnalyzer).toBeNull();
  });

  it('accept with run: false runs the held actions at the next run()', async () => {
    const { agent } = scriptedAgent([{ toolCalls: [terminal('touch ran.txt')] }, { text: 'done' }]);
    await using conversation = await start(agent, {
      confirmationPolicy: { kind: 'AlwaysConfirm' },
    });
    await conversation.sendMessage('go');
    await conversation.run();
    expect(await conversation.respondToConfirmation({ accept: true, run: false })).toBe(
      'waiting_for_confirmation',
    );
    expect(existsSync(marker())).toBe(false);
    await expect(conversation.respondToConfirmation({ accept: true })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await conversation.run()).toBe('finished');
    expect(existsSync(marker())).toBe(true);
  });
});
