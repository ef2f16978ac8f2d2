import { existsSync } from 'node:fs';
import path from 'node:path';
import { AGENT_SERVER_ROUTES, conversationPath } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import {
  api,
  scriptedAgent,
  useTestServer,
  waitForStatus,
} from '../conversations/test-support/conversation-api.js';
import { TestSocketClient } from '../test-support/test-socket-client.js';

const R = AGENT_SERVER_ROUTES;
const message = (text: string, run = true) => ({
  role: 'user',
  content: [{ type: 'text', text }],
  run,
});
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

// Every server path that could run a held action without an acceptance.
describe('held actions on the agent-server run only once accepted', () => {
  // One loaded conversation at most: starting another unloads the idle waiting one.
  const t = useTestServer({ maxLoadedConversations: 1 });

  it('survive a message with run, a socket message, a fork, and an idle unload and reload', async () => {
    const start = async (command: string): Promise<string> => {
      const created = await api(t.url, 'POST', R.conversations, {
        workspace: { kind: 'LocalWorkspace', working_dir: t.dir },
        agent: scriptedAgent(command),
        confirmation_policy: { kind: 'AlwaysConfirm' },
      });
      expect(created.status).toBe(201);
      return created.json.id as string;
    };
    const ran = path.join(t.dir, 'held-ran.txt');
    const id = await start('touch held-ran.txt');
    await api(t.url, 'POST', conversationPath(R.conversationEvents, id), message('go'));
    await waitForStatus(t.url, id, 'waiting_for_confirmation');

    // A message with `run: true` is no acceptance.
    const sent = await api(
      t.url,
      'POST',
      conversationPath(R.conversationEvents, id),
      message('do it'),
    );
    expect(sent.status).toBe(200);
    await settle();
    await waitForStatus(t.url, id, 'waiting_for_confirmation');
    expect(existsSync(ran)).toBe(false);

    // Nor is a message over the events socket (it runs the conversation).
    const client = await TestSocketClient.open(
      `${t.url.replace('http', 'ws')}${conversationPath(R.conversationEventsSocket, id)}`,
    );
    await client.next((frame) => frame.key === 'full_state');
    client.send({ role: 'user', content: [{ type: 'text', text: 'please' }] });
    await client.next((frame) => frame.kind === 'MessageEvent');
    await settle();
    await client.close();
    await waitForStatus(t.url, id, 'waiting_for_confirmation');
    expect(existsSync(ran)).toBe(false);

    // A fork copies the held action but never runs it: it starts idle, nothing to confirm.
    const forked = await api(t.url, 'POST', conversationPath(R.forkConversation, id), {});
    expect(forked.status).toBe(201);
    const forkId = forked.json.id as string;
    expect(forked.json.confirmation_policy).toEqual({ kind: 'AlwaysConfirm' });
    expect(
      (
        await api(t.url, 'POST', conversationPath(R.respondToConfirmation, forkId), {
          accept: true,
        })
      ).status,
    ).toBe(409);
    await api(t.url, 'POST', conversationPath(R.conversationEvents, forkId), message('go on'));
    await settle();
    expect(existsSync(ran)).toBe(false);

    // Another conversation unloads the waiting one; loaded again, it still waits.
    const other = await start('true');
    await api(t.url, 'POST', conversationPath(R.conversationEvents, other), message('x', false));
    expect((await api(t.url, 'POST', conversationPath(R.runConversation, id))).status).toBe(200);
    await settle();
    await waitForStatus(t.url, id, 'waiting_for_confirmation');
    expect(existsSync(ran)).toBe(false);

    const accepted = await api(t.url, 'POST', conversationPath(R.respondToConfirmation, id), {
      accept: true,
    });
    expect(accepted.status).toBe(200);
    await waitForStatus(t.url, id, 'finished');
    expect(existsSync(ran)).toBe(true);
  });
});
