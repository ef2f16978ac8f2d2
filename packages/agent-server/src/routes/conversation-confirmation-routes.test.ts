import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AGENT_SERVER_ROUTES, conversationPath } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import {
  jsonApi as api,
  scriptedAgent,
  useTestServer,
  waitForStatus,
} from '../conversations/test-support/conversation-api.js';
import { createAgentServer } from '../create-agent-server.js';

const R = AGENT_SERVER_ROUTES;

// biome-ignore lint/suspicious/noExplicitAny: tests read events loosely
async function events(base: string, id: string): Promise<any[]> {
  const { json } = await api(base, 'GET', `${conversationPath(R.searchConversationEvents, id)}`);
  return json.items;
}

const message = (text: string) => ({
  role: 'user',
  content: [{ type: 'text', text }],
  run: true,
});

describe('confirmation routes', () => {
  const t = useTestServer();

  async function start(extra: Record<string, unknown>, ...commands: string[]): Promise<string> {
    const created = await api(t.url, 'POST', R.conversations, {
      workspace: { kind: 'LocalWorkspace', working_dir: t.dir },
      agent: scriptedAgent(...commands),
      ...extra,
    });
    expect(created.status).toBe(201);
    return created.json.id as string;
  }

  it('AlwaysConfirm from the start request: waits with nothing run, runs once accepted', async () => {
    const id = await start(
      {
        confirmation_policy: { kind: 'AlwaysConfirm' },
        security_analyzer: { kind: 'PatternSecurityAnalyzer' },
      },
      'touch accepted.txt',
    );
    const info = await api(t.url, 'GET', conversationPath(R.conversation, id));
    expect(info.json).toMatchObject({
      confirmation_policy: { kind: 'AlwaysConfirm' },
      security_analyzer: { kind: 'PatternSecurityAnalyzer' },
    });
    expect(
      (await api(t.url, 'POST', conversationPath(R.conversationEvents, id), message('go'))).status,
    ).toBe(200);
    await waitForStatus(t.url, id, 'waiting_for_confirmation');
    expect(existsSync(path.join(t.dir, 'accepted.txt'))).toBe(false);
    const held = (await events(t.url, id)).filter((event) => event.kind === 'ActionEvent');
    expect(held).toMatchObject([{ tool_name: 'terminal', security_risk: 'LOW' }]);

    // A bare run is no confirmation.
    expect((await api(t.url, 'POST', conversationPath(R.runConversation, id))).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(existsSync(path.join(t.dir, 'accepted.txt'))).toBe(false);
    await waitForStatus(t.url, id, 'waiting_for_confirmation');

    const accepted = await api(t.url, 'POST', conversationPath(R.respondToConfirmation, id), {
      accept: true,
    });
    expect(accepted).toEqual({ status: 200, json: { success: true } });
    await waitForStatus(t.url, id, 'finished');
    expect(existsSync(path.join(t.dir, 'accepted.txt'))).toBe(true);

    const again = await api(t.url, 'POST', conversationPath(R.respondToConfirmation, id), {
      accept: true,
    });
    expect(again).toEqual({
      status: 409,
      json: { detail: 'No actions are waiting for confirmation' },
    });
  });

  it('a rejection records UserRejectObservation with the reason; the action never runs', async () => {
    const id = await start({}, 'touch rejected.txt');
    const set = await api(t.url, 'POST', conversationPath(R.conversationConfirmationPolicy, id), {
      policy: { kind: 'AlwaysConfirm' },
    });
    expect(set).toEqual({ status: 200, json: { success: true } });
    await api(t.url, 'POST', conversationPath(R.conversationEvents, id), message('go'));
    await waitForStatus(t.url, id, 'waiting_for_confirmation');
    const rejected = await api(t.url, 'POST', conversationPath(R.respondToConfirmation, id), {
      accept: false,
      reason: 'not today',
    });
    expect(rejected.status).toBe(200);
    await waitForStatus(t.url, id, 'idle');
    const all = await events(t.url, id);
    const action = all.find((event) => event.kind === 'ActionEvent');
    expect(all.filter((event) => event.kind === 'UserRejectObservation')).toMatchObject([
      {
        action_id: action.id,
        tool_call_id: action.tool_call_id,
        rejection_reason: 'not today',
        rejection_source: 'user',
      },
    ]);
    expect(all.some((event) => event.kind === 'ObservationEvent')).toBe(false);
    expect(existsSync(path.join(t.dir, 'rejected.txt'))).toBe(false);
  });

  it('ConfirmRisky + pattern analyzer set by route: a LOW command runs, rm -rf ~ waits', async () => {
    const id = await start({}, 'touch low.txt', 'touch high.txt; rm -rf ~/');
    await api(t.url, 'POST', conversationPath(R.conversationSecurityAnalyzer, id), {
      security_analyzer: { kind: 'PatternSecurityAnalyzer' },
    });
    await api(t.url, 'POST', conversationPath(R.conversationConfirmationPolicy, id), {
      policy: { kind: 'ConfirmRisky', threshold: 'HIGH' },
    });
    const info = await api(t.url, 'GET', conversationPath(R.conversation, id));
    expect(info.json).toMatchObject({
      confirmation_policy: { kind: 'ConfirmRisky', threshold: 'HIGH', confirm_unknown: true },
      security_analyzer: { kind: 'PatternSecurityAnalyzer' },
    });
    await api(t.url, 'POST', conversationPath(R.conversationEvents, id), message('go'));
    await waitForStatus(t.url, id, 'waiting_for_confirmation');
    expect(existsSync(path.join(t.dir, 'low.txt'))).toBe(true);
    expect(existsSync(path.join(t.dir, 'high.txt'))).toBe(false);
    const risks = (await events(t.url, id))
      .filter((event) => event.kind === 'ActionEvent')
      .map((event) => event.security_risk);
    expect(risks).toEqual(['LOW', 'HIGH']);
    await api(t.url, 'POST', conversationPath(R.respondToConfirmation, id), { accept: false });
    await waitForStatus(t.url, id, 'idle');

    const cleared = await api(t.url, 'POST', conversationPath(R.conversationSecurityAnalyzer, id), {
      security_analyzer: null,
    });
    expect(cleared.status).toBe(200);
    expect(
      (await api(t.url, 'GET', conversationPath(R.conversation, id))).json.security_analyzer,
    ).toBeNull();
  });

  it('answers 422 for bad bodies and 404 for an unknown conversation', async () => {
    const id = await start({});
    const bad = [
      [
        R.conversationConfirmationPolicy,
        { policy: { kind: 'SometimesConfirm' } },
        'SometimesConfirm',
      ],
      [
        R.conversationConfirmationPolicy,
        { policy: { kind: 'ConfirmRisky', threshold: 'UNKNOWN' } },
        'threshold',
      ],
      [R.conversationConfirmationPolicy, {}, 'policy'],
      [
        R.conversationSecurityAnalyzer,
        { security_analyzer: { kind: 'LLMSecurityAnalyzer' } },
        'not supported security analyzer kind',
      ],
      [R.conversationSecurityAnalyzer, {}, 'security_analyzer'],
      [R.respondToConfirmation, { accept: 'yes' }, 'accept'],
      [R.respondToConfirmation, { accept: false, reason: 'x'.repeat(4097) }, 'reason'],
    ] as const;
    for (const [route, body, mention] of bad) {
      const reply = await api(t.url, 'POST', conversationPath(route, id), body);
      expect(reply.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(JSON.stringify(reply.json)).toContain(mention);
    }
    const unknown = crypto.randomUUID();
    for (const [route, body] of [
      [R.conversationConfirmationPolicy, { policy: { kind: 'AlwaysConfirm' } }],
      [R.conversationSecurityAnalyzer, { security_analyzer: null }],
      [R.respondToConfirmation, { accept: true }],
    ] as const) {
      expect((await api(t.url, 'POST', conversationPath(route, unknown), body)).status).toBe(404);
    }
    const nothing = await api(t.url, 'POST', conversationPath(R.respondToConfirmation, id), {
      accept: false,
    });
    expect(nothing.status).toBe(409);
  });
});

describe('a server restarted while actions wait for confirmation', () => {
  it('keeps them held (a run does not run them) until accepted', async () => {
    const workingDir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'confirm-restart-')));
    const stateDir = await mkdtemp(path.join(os.tmpdir(), 'confirm-restart-state-'));
    try {
      const first = await createAgentServer({ port: 0, logLevel: 'silent', workingDir, stateDir });
      const created = await api(first.url, 'POST', R.conversations, {
        workspace: { kind: 'LocalWorkspace', working_dir: workingDir },
        agent: scriptedAgent('touch survived.txt'),
        confirmation_policy: { kind: 'AlwaysConfirm' },
      });
      const id = created.json.id as string;
      await api(first.url, 'POST', conversationPath(R.conversationEvents, id), message('go'));
      await waitForStatus(first.url, id, 'waiting_for_confirmation');
      await first.close();

      const second = await createAgentServer({ port: 0, logLevel: 'silent', workingDir, stateDir });
      try {
        // Listed from disk, not loaded yet: the info still shows the policy and the status.
        const info = await api(second.url, 'GET', conversationPath(R.conversation, id));
        expect(info.json).toMatchObject({
          execution_status: 'waiting_for_confirmation',
          confirmation_policy: { kind: 'AlwaysConfirm' },
          security_analyzer: null,
        });
        expect(
          (await api(second.url, 'POST', conversationPath(R.runConversation, id))).status,
        ).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 200));
        await waitForStatus(second.url, id, 'waiting_for_confirmation');
        expect(existsSync(path.join(workingDir, 'survived.txt'))).toBe(false);
        await api(second.url, 'POST', conversationPath(R.respondToConfirmation, id), {
          accept: true,
        });
        await waitForStatus(second.url, id, 'finished');
        expect(existsSync(path.join(workingDir, 'survived.txt'))).toBe(true);
      } finally {
        await second.close();
      }
    } finally {
      await rm(workingDir, { recursive: true, force: true });
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});
