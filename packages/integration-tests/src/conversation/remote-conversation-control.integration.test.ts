import { WorkspaceError } from '@agent-workspace/core';
import { RemoteConversation, RollingWindowCondenser } from '@agent-workspace/sdk';
import { describe, expect, it, vi } from 'vitest';
import { scriptedTerminalAgent, useRemoteTestServer } from '../test-support/remote-test-server.js';

const API_KEY = 'remote-control-test-key';

describe("RemoteConversation's control methods against the agent-server", () => {
  const remote = useRemoteTestServer(API_KEY);

  it('condenses, sets the title, and forks into a conversation it joins', async () => {
    const condenser = new RollingWindowCondenser({ maxSize: 100, keepFirst: 1 });
    await using conversation = await RemoteConversation.create({
      agent: scriptedTerminalAgent(['echo one', 'echo two'], { condenser }),
      workspace: remote.workspace,
    });
    await conversation.sendMessage('Go.');
    expect(await conversation.run()).toBe('finished');
    await conversation.condense();
    await vi.waitFor(() =>
      expect(conversation.events.toArray().map((event) => event.kind)).toContain('Condensation'),
    );

    await conversation.setTitle('Two echoes');
    const info = await fetch(`${remote.server.url}/api/conversations/${conversation.id}`, {
      headers: { 'x-session-api-key': API_KEY },
    });
    expect(((await info.json()) as { title: string }).title).toBe('Two echoes');
    await expect(conversation.setTitle('x'.repeat(201))).rejects.toSatisfy((error) =>
      WorkspaceError.isInstance(error, 'INVALID_ARGUMENT'),
    );

    const firstAction = conversation.events
      .toArray()
      .find((event) => event.kind === 'ActionEvent')!;
    await using fork = await conversation.fork({ fromEventId: firstAction.id, title: 'Branch' });
    expect(fork.id).not.toBe(conversation.id);
    expect(fork.state.executionStatus).toBe('idle');
    expect(fork.events.toArray().at(-1)?.id).toBe(firstAction.id);
    await expect(conversation.fork({ conversationId: conversation.id })).rejects.toSatisfy(
      (error) => WorkspaceError.isInstance(error, 'ALREADY_EXISTS'),
    );
    await expect(conversation.fork({ fromEventId: 'nope' })).rejects.toSatisfy((error) =>
      WorkspaceError.isInstance(error, 'NOT_FOUND'),
    );
  });

  it('refuses condense() without a condenser as NOT_SUPPORTED', async () => {
    await using conversation = await RemoteConversation.create({
      agent: scriptedTerminalAgent(['echo one']),
      workspace: remote.workspace,
    });
    await expect(conversation.condense()).rejects.toSatisfy((error) =>
      WorkspaceError.isInstance(error, 'NOT_SUPPORTED'),
    );
  });

  it('interrupt() stops a long command at once and the run ends paused', async () => {
    await using conversation = await RemoteConversation.create({
      agent: scriptedTerminalAgent(['sleep 60']),
      workspace: remote.workspace,
    });
    await conversation.sendMessage('Wait.');
    const running = conversation.run();
    await vi.waitFor(
      () =>
        expect(conversation.events.toArray().map((event) => event.kind)).toContain('ActionEvent'),
      { timeout: 20_000, interval: 50 },
    );
    const started = Date.now();
    await conversation.interrupt();
    expect(await running).toBe('paused');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(conversation.events.toArray().map((event) => event.kind)).toContain('InterruptEvent');
  });
});
