import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalWorkspace } from '@agent-workspace/core';
import { suiteSkipReason } from '@agent-workspace/core/testing';
import { PluginHost, runtimePluginUnavailableReason } from '@agent-workspace/runtime-plugins';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../agent/agent.js';
import { recordingModel } from '../agent/test-support/recording-model.js';
import { ScriptedLLM, type ScriptedStep } from '../llm/scripted-llm.js';
import { ConversationTools, type UnavailableTool } from './conversation-tools.js';
import { LocalConversation } from './local-conversation.js';

/** A local workspace that says it is a container's projection: not on this machine for tools. */
class ContainerProjectedWorkspace extends LocalWorkspace {
  protected override async describeIdentity() {
    return { projectionKind: 'container' as const };
  }
}

let dir: string;
let workspace: LocalWorkspace;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(tmpdir(), 'conversation-tools-')));
  workspace = new LocalWorkspace({ workingDir: dir });
});
afterEach(async () => {
  await workspace.close();
  await rm(dir, { recursive: true, force: true });
});

function agentWith(tools: string[], script: ScriptedStep[] = [{ text: 'done' }]) {
  const llm = recordingModel(new ScriptedLLM({ script }));
  return { agent: new Agent({ llm, tools }), llm };
}

describe('ConversationTools', () => {
  it('starts a local plugin host with only the plugins its tools need, and closes it', async () => {
    const { agent } = agentWith(['TerminalTool', 'IPythonTool']);
    const tools = new ConversationTools({
      tools: agent.createTools(),
      workspace,
      onToolUnavailable: () => {},
    });
    const prepared = await tools.prepare();
    expect(prepared.actions).toBeDefined();
    expect(await tools.prepare()).toBe(prepared);
    const before = await prepared.actions?.runtimePlugins();
    expect(before?.map((plugin) => plugin.name)).toEqual(['python']);
    await tools.close();
    const after = await prepared.actions?.runtimePlugins();
    expect(after?.map((plugin) => plugin.state)).toEqual(['closed']);
  });

  it('starts no host for tools that need no plugin', async () => {
    const { agent } = agentWith(['TerminalTool']);
    const prepared = await new ConversationTools({
      tools: agent.createTools(),
      workspace,
    }).prepare();
    expect(prepared.actions).toBeUndefined();
    expect(prepared.tools.map((tool) => tool.name)).toEqual(['terminal', 'finish']);
  });

  it('leaves plugin tools out, with the reason, for a workspace not on this machine', async () => {
    await using remote = new ContainerProjectedWorkspace({ workingDir: dir });
    const { agent, llm } = agentWith(['TerminalTool', 'BrowserTool', 'IPythonTool']);
    const told: UnavailableTool[] = [];
    await using conversation = await LocalConversation.create({
      agent,
      workspace: remote,
      onToolUnavailable: (tool) => told.push(tool),
    });
    expect(conversation.unavailableTools).toEqual([]);
    await conversation.sendMessage('hi');
    expect(await conversation.run()).toBe('finished');
    expect(told.map((tool) => tool.name)).toEqual(['browser', 'execute_ipython_cell']);
    expect(told[0]?.reason).toContain('not on this machine');
    expect(conversation.unavailableTools).toEqual(told);
    expect(llm.requests[0]?.tools?.map((tool) => tool.name)).toEqual(['terminal', 'finish']);
  });

  it('starts no local host when told there is no executor', async () => {
    const { agent } = agentWith(['IPythonTool']);
    const told: UnavailableTool[] = [];
    const prepared = await new ConversationTools({
      tools: agent.createTools(),
      workspace,
      actions: null,
      onToolUnavailable: (tool) => told.push(tool),
    }).prepare();
    expect(prepared.actions).toBeUndefined();
    expect(prepared.tools.map((tool) => tool.name)).toEqual(['finish']);
    expect(told).toEqual([
      { name: 'execute_ipython_cell', reason: 'the conversation runs no runtime plugins' },
    ]);
  });

  it('uses the given executor instead of a local host', async () => {
    await using host = PluginHost.start({ plugins: [], workingDir: dir });
    const { agent } = agentWith(['IPythonTool']);
    const told: UnavailableTool[] = [];
    const tools = new ConversationTools({
      tools: agent.createTools(),
      workspace,
      actions: host,
      onToolUnavailable: (tool) => told.push(tool),
    });
    const prepared = await tools.prepare();
    expect(prepared.actions).toBe(host);
    expect(told).toEqual([
      { name: 'execute_ipython_cell', reason: expect.stringContaining('not enabled') },
    ]);
    await tools.close();
  });
});

const kernelSkip = suiteSkipReason(
  'LocalConversation with IPythonTool (real IPython kernel)',
  await runtimePluginUnavailableReason('python'),
);

describe.skipIf(kernelSkip)('LocalConversation with IPythonTool', () => {
  it('runs cells on a local kernel started for the conversation', async () => {
    const { agent } = agentWith(
      ['IPythonTool'],
      [
        { toolCalls: [{ name: 'execute_ipython_cell', arguments: { code: 'x = 6 * 7' } }] },
        { toolCalls: [{ name: 'execute_ipython_cell', arguments: { code: 'print(x)' } }] },
        { toolCalls: [{ name: 'finish', arguments: { message: 'x is 42' } }] },
      ],
    );
    await using conversation = await LocalConversation.create({ agent, workspace });
    await conversation.sendMessage('compute');
    expect(await conversation.run()).toBe('finished');
    const observations = [...conversation.events].flatMap((event) =>
      event.kind === 'ObservationEvent' && event.tool_name === 'execute_ipython_cell'
        ? [event.observation]
        : [],
    );
    expect(observations).toHaveLength(2);
    expect(observations[1]).toMatchObject({
      kind: 'ExecuteIpythonCellObservation',
      is_error: false,
      code: 'print(x)',
      content: [{ type: 'text', text: expect.stringContaining('42') }],
    });
    expect(conversation.unavailableTools).toEqual([]);
  });
});
