import { existsSync } from 'node:fs';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { RemoteConversation } from '@agent-workspace/sdk';
import { describe, expect, it } from 'vitest';
import { scriptedTerminalAgent, useRemoteTestServer } from '../test-support/remote-test-server.js';

const API_KEY = 'remote-confirmation-test-key';

describe("RemoteConversation's confirmation mode against the agent-server", () => {
  const remote = useRemoteTestServer(API_KEY);

  it('waits under AlwaysConfirm (create option); respondToConfirmation accepts and runs to the end', async () => {
    await using conversation = await RemoteConversation.create({
      agent: scriptedTerminalAgent(['touch remote-accepted.txt']),
      workspace: remote.workspace,
      confirmationPolicy: { kind: 'AlwaysConfirm' },
      securityAnalyzer: { kind: 'PatternSecurityAnalyzer' },
    });
    await conversation.sendMessage('Go.');
    expect(await conversation.run()).toBe('waiting_for_confirmation');
    expect(existsSync(path.join(remote.server.dir, 'remote-accepted.txt'))).toBe(false);
    const action = conversation.events.toArray().find((event) => event.kind === 'ActionEvent');
    expect(action).toMatchObject({ security_risk: 'LOW' });

    expect(await conversation.respondToConfirmation({ accept: true })).toBe('finished');
    expect(existsSync(path.join(remote.server.dir, 'remote-accepted.txt'))).toBe(true);
    await expect(conversation.respondToConfirmation({ accept: true })).rejects.toSatisfy((error) =>
      WorkspaceError.isInstance(error, 'NOT_FOUND'),
    );
  });

  it('rejects with a reason (the action never runs); setConfirmationPolicy / setSecurityAnalyzer by route', async () => {
    await using conversation = await RemoteConversation.create({
      agent: scriptedTerminalAgent(['touch remote-rejected.txt']),
      workspace: remote.workspace,
    });
    await conversation.setConfirmationPolicy({ kind: 'ConfirmRisky', threshold: 'LOW' });
    await conversation.setSecurityAnalyzer({ kind: 'PatternSecurityAnalyzer' });
    await conversation.sendMessage('Go.');
    expect(await conversation.run()).toBe('waiting_for_confirmation');
    expect(await conversation.respondToConfirmation({ accept: false, reason: 'No, thanks.' })).toBe(
      'idle',
    );
    expect(existsSync(path.join(remote.server.dir, 'remote-rejected.txt'))).toBe(false);

    await expect(
      conversation.setConfirmationPolicy({ kind: 'ConfirmRisky', threshold: 'UNKNOWN' } as never),
    ).rejects.toSatisfy((error) => WorkspaceError.isInstance(error, 'INVALID_ARGUMENT'));
    await expect(
      conversation.setSecurityAnalyzer({ kind: 'LLMSecurityAnalyzer' }),
    ).rejects.toSatisfy((error) => WorkspaceError.isInstance(error, 'INVALID_ARGUMENT'));
    await expect(
      conversation.respondToConfirmation({ accept: false, reason: 'x'.repeat(4097) }),
    ).rejects.toSatisfy((error) => WorkspaceError.isInstance(error, 'INVALID_ARGUMENT'));
  });
});
