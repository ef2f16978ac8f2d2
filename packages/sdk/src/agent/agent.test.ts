import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalWorkspace, WorkspaceError } from '@agent-workspace/core';
import type { ConversationEventWire } from '@agent-workspace/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LanguageModel } from '../llm/language-model.js';
import { LLM } from '../llm/llm.js';
import { ScriptedLLM } from '../llm/scripted-llm.js';
import { FileEditorTool } from '../tools/file-editor-tool.js';
import { IPythonTool } from '../tools/ipython-tool.js';
import { TerminalTool } from '../tools/terminal-tool.js';
import { Agent, DEFAULT_MAX_ITERATIONS } from './agent.js';
import { DEFAULT_SYSTEM_PROMPT } from './default-system-prompt.js';
import { expectWireEvents } from './test-support/expect-wire-events.js';
import { toolKindName } from './tool-kind-name.js';

const script = [
  { toolCalls: [{ name: 'terminal', arguments: { command: 'ls' } }] },
  { text: 'ok' },
];

function expectWorkspaceError(run: () => unknown, code: string, field: string): void {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(WorkspaceError.isInstance(caught), String(caught)).toBe(true);
  expect((caught as WorkspaceError).code).toBe(code);
  expect((caught as WorkspaceError).details.field).toBe(field);
}

describe('toolKindName', () => {
  it('names OpenHands kinds from LLM-facing tool names', () => {
    expect(toolKindName('terminal', 'Tool')).toBe('TerminalTool');
    expect(toolKindName('file_editor', 'Action')).toBe('FileEditorAction');
    expect(toolKindName('task_tracker', 'Observation')).toBe('TaskTrackerObservation');
    expect(toolKindName('finish', 'Action')).toBe('FinishAction');
  });
});

describe('Agent', () => {
  it('checks its options', () => {
    const llm = new ScriptedLLM({ script });
    for (const maxIterations of [0, 1.5, 10_001]) {
      expectWorkspaceError(
        () => new Agent({ llm, maxIterations }),
        'INVALID_ARGUMENT',
        'maxIterations',
      );
    }
    expectWorkspaceError(
      () => new Agent({ llm, tools: [new TerminalTool(), 'TerminalTool'] }),
      'INVALID_ARGUMENT',
      'tools',
    );
    expectWorkspaceError(
      () => new Agent({ llm, tools: ['NoSuchTool'] }),
      'INVALID_ARGUMENT',
      'tools',
    );
    // A tool whose spec name is not derived from its LLM name still counts once.
    expectWorkspaceError(
      () => new Agent({ llm, tools: [new IPythonTool(), 'IPythonTool'] }),
      'INVALID_ARGUMENT',
      'tools',
    );
    expect(new Agent({ llm, tools: [new IPythonTool()] }).toConfig().tools).toEqual([
      { name: 'IPythonTool' },
    ]);
    const agent = new Agent({ llm });
    expect(agent.maxIterations).toBe(DEFAULT_MAX_ITERATIONS);
    expect(agent.systemPrompt).toBe(DEFAULT_SYSTEM_PROMPT);
  });

  it('has an OpenHands-shaped JSON form that builds the same agent back', () => {
    const agent = new Agent({
      llm: new ScriptedLLM({ script }),
      tools: [new TerminalTool(), 'FileEditorTool'],
      systemPrompt: 'Be brief.',
    });
    const config = agent.toConfig();
    expect(config).toEqual({
      kind: 'Agent',
      llm: {
        kind: 'ScriptedLLM',
        script: [
          { tool_calls: [{ name: 'terminal', arguments: { command: 'ls' } }] },
          { text: 'ok' },
        ],
      },
      tools: [{ name: 'TerminalTool' }, { name: 'FileEditorTool' }],
      system_prompt: 'Be brief.',
    });
    const copy = Agent.fromConfig(JSON.parse(JSON.stringify(config)), { maxIterations: 7 });
    expect(copy.llm).toBeInstanceOf(ScriptedLLM);
    expect(copy.toConfig()).toEqual(config);
    expect(copy.systemPrompt).toBe('Be brief.');
    expect(copy.maxIterations).toBe(7);
    // Without a prompt of its own, the JSON form has none (the default is not frozen into it).
    expect(new Agent({ llm: new ScriptedLLM({ script }) }).toConfig()).not.toHaveProperty(
      'system_prompt',
    );
  });

  it('makes tools for each conversation: fresh ones for spec names, plus finish', () => {
    const terminal = new TerminalTool();
    const agent = new Agent({
      llm: new ScriptedLLM({ script }),
      tools: [terminal, 'FileEditorTool'],
    });
    const first = agent.createTools({ workingDir: '/work' });
    const second = agent.createTools();
    expect(first.map((tool) => tool.name)).toEqual(['terminal', 'file_editor', 'finish']);
    expect(first[0]).toBe(terminal);
    expect(second[0]).toBe(terminal);
    expect(first[1]).toBeInstanceOf(FileEditorTool);
    expect(second[1]).not.toBe(first[1]);
    expect(first[1]?.description).toContain('/work');
  });

  it('builds a real LLM from an OpenHands agent config, keeping the key out of its JSON', () => {
    const openHandsAgent = {
      kind: 'Agent',
      llm: { model: 'openai/gpt-4o', api_key: 'sk-test-key', usage_id: 'agent', extra_field: 1 },
      tools: [{ name: 'TerminalTool', params: {} }, { name: 'FileEditorTool' }],
      agent_context: null,
      condenser: null,
    };
    const agent = Agent.fromConfig(openHandsAgent, {
      createModel: (config) => LLM.fromConfig(config, { env: {} }),
    });
    expect(agent.llm).toBeInstanceOf(LLM);
    expect(agent.llm.model).toBe('openai/gpt-4o');
    const config = agent.toConfig();
    expect(config.tools).toEqual([{ name: 'TerminalTool' }, { name: 'FileEditorTool' }]);
    expect(config.llm).not.toHaveProperty('api_key');
    expect(agent.toConfig({ includeApiKey: true }).llm).toMatchObject({ api_key: 'sk-test-key' });
  });

  it('refuses a bad config with INVALID_CONFIG naming the field', () => {
    expectWorkspaceError(
      () => Agent.fromConfig({ llm: { kind: 'ScriptedLLM', script: [] }, tools: [{ name: '' }] }),
      'INVALID_CONFIG',
      'tools.0.name',
    );
    expectWorkspaceError(() => Agent.fromConfig({ kind: 'Agent' }), 'INVALID_CONFIG', 'llm');
    expectWorkspaceError(
      () => Agent.fromConfig({ llm: { model: 'openai/gpt-4o-mini', base_url: 'not a url' } }),
      'INVALID_CONFIG',
      'llm.base_url',
    );
    expectWorkspaceError(
      () => Agent.fromConfig({ llm: { kind: 'ScriptedLLM', script: [{}] } }),
      'INVALID_CONFIG',
      'llm.script.0',
    );
  });

  it('has no JSON form when its model has none', () => {
    const bare: LanguageModel = { model: 'bare', complete: () => Promise.reject(new Error('no')) };
    expectWorkspaceError(() => new Agent({ llm: bare }).toConfig(), 'INVALID_ARGUMENT', 'llm');
  });

  describe('step', () => {
    let root: string;
    let workspace: LocalWorkspace;

    beforeEach(async () => {
      root = await mkdtemp(path.join(tmpdir(), 'agent-step-'));
      workspace = new LocalWorkspace({ workingDir: root });
    });

    afterEach(async () => {
      await workspace.close();
      await rm(root, { recursive: true, force: true });
    });

    it('does nothing when its signal has already fired', async () => {
      const agent = new Agent({ llm: new ScriptedLLM({ script }), tools: ['TerminalTool'] });
      const events: ConversationEventWire[] = [];
      const controller = new AbortController();
      controller.abort();
      const step = agent.step({
        events,
        emit: (event) => events.push(event),
        workspace,
        tools: agent.createTools(),
        signal: controller.signal,
      });
      await expect(step).rejects.toSatisfy((error) => WorkspaceError.isInstance(error, 'ABORTED'));
      expect(events).toEqual([]);
    });

    it('gives events ids a model left empty, so they stay valid wire events', async () => {
      const careless: LanguageModel = {
        model: 'careless-double',
        async complete() {
          const toolCalls = [{ id: '', name: 'terminal', arguments: '{"command":"true"}' }];
          return {
            id: '',
            message: { role: 'assistant', content: '', toolCalls },
            usage: { inputTokens: 0, outputTokens: 0 },
          };
        },
      };
      const agent = new Agent({ llm: careless, tools: ['TerminalTool'] });
      const events: ConversationEventWire[] = [];
      await agent.step({
        events,
        emit: (event) => events.push(event),
        workspace,
        tools: agent.createTools(),
      });
      expect(events.map((event) => event.kind)).toEqual(['ActionEvent', 'ObservationEvent']);
      expectWireEvents(events);
      expect(events[1]).toMatchObject({
        tool_call_id: (events[0] as { tool_call_id: string }).tool_call_id,
      });
    });

    it('acts on one answer and reports whether the agent is done', async () => {
      const agent = new Agent({ llm: new ScriptedLLM({ script }), tools: ['TerminalTool'] });
      const events: ConversationEventWire[] = [];
      const context = {
        events,
        emit: (event: ConversationEventWire) => events.push(event),
        workspace,
        tools: agent.createTools(),
      };
      expect(await agent.step(context)).toEqual({ finished: false });
      expect(events.map((event) => event.kind)).toEqual(['ActionEvent', 'ObservationEvent']);
      expect(await agent.step(context)).toEqual({ finished: true });
      expect(events.at(-1)?.kind).toBe('MessageEvent');
    });
  });
});
