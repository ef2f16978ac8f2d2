import { existsSync } from 'node:fs';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import {
  AGENT_STUCK,
  type ConversationEventWire,
  conversationEventWireSchema,
  MAX_ITERATIONS_REACHED,
} from '@agent-workspace/protocol';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { INTERRUPTED_CALL_RESULT } from '../agent/build-transcript.js';
import { expectWireEvents } from '../agent/test-support/expect-wire-events.js';
import type { LanguageModel } from '../llm/language-model.js';
import { LLMError } from '../llm/llm-error.js';
import type { ScriptedStep } from '../llm/scripted-llm.js';
import { useConversationTempWorkspace } from '../test-support/conversation-temp-workspace.js';
import {
  finish,
  kinds,
  ofKind,
  scriptedAgent as scriptedTerminalAgent,
  statuses,
  terminal,
} from '../test-support/scripted-conversation.js';
import type { Tool } from '../tools/tool.js';
import { EVENTS_FILE } from './conversation-store.js';
import { LocalConversation } from './local-conversation.js';
import type { LocalConversationOptions } from './local-conversation-options.js';
import { STATE_FILE } from './persisted-conversation-state.js';

const temp = useConversationTempWorkspace('local-conversation-');

/** A file editor call; `path` is relative to the working directory (the editor wants it absolute). */
const edit = (args: { path: string } & Record<string, unknown>) => ({
  name: 'file_editor',
  arguments: { ...args, path: path.join(temp.workingDir, args.path) },
});

/** An agent with the test tools and a scripted model that records what it is asked. */
const scriptedAgent = (
  script: ScriptedStep[],
  options: { maxIterations?: number; tools?: (Tool | string)[] } = {},
) => scriptedTerminalAgent(script, { tools: ['TerminalTool', 'FileEditorTool'], ...options });

function start(agent: Agent, options: Partial<LocalConversationOptions> = {}) {
  return LocalConversation.create({ agent, workspace: temp.workspace, ...options });
}

/** The text an observation shows the model. */
const shown = (event: ConversationEventWire | undefined) =>
  event?.kind === 'ObservationEvent'
    ? event.observation.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n')
    : undefined;

/** Writes hello.txt with the editor, shows it with the terminal, finishes. */
const writeScript = (): ScriptedStep[] => [
  {
    text: 'I will write the file.',
    toolCalls: [edit({ command: 'create', path: 'hello.txt', file_text: 'hello\n' })],
  },
  { toolCalls: [terminal('cat hello.txt')] },
  { toolCalls: [finish('Wrote hello.txt')] },
];

describe('LocalConversation', () => {
  it('runs a scripted agent that writes a file with the editor and terminal tools and finishes', async () => {
    const { agent, llm } = scriptedAgent([
      writeScript()[0]!,
      { toolCalls: [terminal("printf 'bye\\n' >> hello.txt && cat hello.txt")] },
      {
        toolCalls: [
          edit({ command: 'str_replace', path: 'hello.txt', old_str: 'bye', new_str: 'world' }),
        ],
      },
      { toolCalls: [finish('Wrote hello.txt')] },
    ]);
    await using conversation = await start(agent);
    expect(conversation.state.executionStatus).toBe('idle');
    await conversation.sendMessage('Create hello.txt saying hello.');

    expect(await conversation.run()).toBe('finished');

    expect(await readFile(path.join(temp.workingDir, 'hello.txt'), 'utf8')).toBe('hello\nworld\n');
    expect(conversation.state.executionStatus).toBe('finished');
    expect(conversation.agentFinalResponse()).toBe('Wrote hello.txt');
    const events = conversation.events.toArray();
    expect(kinds(events).filter((kind) => kind !== 'ConversationStateUpdateEvent')).toEqual([
      'MessageEvent',
      ...Array.from({ length: 4 }, () => ['ActionEvent', 'ObservationEvent']).flat(),
    ]);
    expect(statuses(events)).toEqual(['running', 'finished']);
    const [create, append, replace, done] = ofKind(events, 'ActionEvent');
    expect(create).toMatchObject({
      source: 'agent',
      thought: [{ type: 'text', text: 'I will write the file.' }],
      action: {
        kind: 'FileEditorAction',
        command: 'create',
        path: path.join(temp.workingDir, 'hello.txt'),
        file_text: 'hello\n',
      },
      tool_name: 'file_editor',
      tool_call_id: 'call_0_0',
      tool_call: { id: 'call_0_0', name: 'file_editor', origin: 'completion' },
      llm_response_id: 'scripted-0',
    });
    expect(append?.thought).toEqual([]);
    expect(append?.action).toMatchObject({ kind: 'TerminalAction' });
    expect(replace?.action).toMatchObject({ kind: 'FileEditorAction', command: 'str_replace' });
    expect(done?.action).toEqual({ kind: 'FinishAction', message: 'Wrote hello.txt' });
    const observations = ofKind(events, 'ObservationEvent');
    expect(observations.map((event) => event.observation.kind)).toEqual([
      'FileEditorObservation',
      'TerminalObservation',
      'FileEditorObservation',
      'FinishObservation',
    ]);
    expect(observations[1]).toMatchObject({
      source: 'environment',
      action_id: append?.id,
      tool_name: 'terminal',
      tool_call_id: append?.tool_call_id,
      observation: { is_error: false, exit_code: 0, output: 'hello\nbye\n' },
    });
    expect(shown(observations[1])).toMatch(
      /^hello\nbye\n\[The command completed with exit code 0\.\]/,
    );
    // The model read each result before its next answer.
    expect(llm.requests).toHaveLength(4);
    expect(llm.requests[2]?.messages.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          {
            id: 'call_1_0',
            name: 'terminal',
            arguments: JSON.stringify({ command: "printf 'bye\\n' >> hello.txt && cat hello.txt" }),
          },
        ],
      },
      {
        role: 'tool',
        content: shown(observations[1]),
        toolCallId: 'call_1_0',
        toolName: 'terminal',
      },
    ]);
    expect(llm.requests[0]?.messages[0]).toEqual({ role: 'system', content: agent.systemPrompt });
    const specs = llm.requests[0]?.tools ?? [];
    expect(specs.map((spec) => spec.name)).toEqual(['terminal', 'file_editor', 'finish']);
    expect(specs[0]?.parameters).toMatchObject({
      type: 'object',
      properties: { command: { type: 'string' } },
      required: ['command'],
    });
    expect(specs[0]?.parameters).not.toHaveProperty('$schema');
    expectWireEvents(events);
  });

  it('ends with an agent message when the model answers without a tool call', async () => {
    const { agent } = scriptedAgent([{ text: 'Nothing to do here.' }]);
    await using conversation = await start(agent);
    await conversation.sendMessage('Anything?');
    expect(await conversation.run()).toBe('finished');
    const [, answer] = ofKind(conversation.events, 'MessageEvent');
    expect(answer).toMatchObject({
      source: 'agent',
      llm_message: { role: 'assistant', content: [{ type: 'text', text: 'Nothing to do here.' }] },
      llm_response_id: 'scripted-0',
    });
    expect(conversation.agentFinalResponse()).toBe('Nothing to do here.');
  });

  it('tells the model about invalid arguments and carries on', async () => {
    const { agent, llm } = scriptedAgent([
      { toolCalls: [{ name: 'terminal', arguments: { cmd: 'ls' } }] },
      { toolCalls: [{ name: 'terminal', arguments: '{"command": "ls' }] },
      { toolCalls: [terminal('echo recovered')] },
      { text: 'Done.' },
    ]);
    await using conversation = await start(agent);
    await conversation.sendMessage('List the files.');
    expect(await conversation.run()).toBe('finished');

    const actions = ofKind(conversation.events, 'ActionEvent');
    expect(actions.map((action) => action.action)).toEqual([
      null,
      null,
      { kind: 'TerminalAction', command: 'echo recovered' },
    ]);
    const errors = ofKind(conversation.events, 'AgentErrorEvent');
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatchObject({ tool_name: 'terminal', tool_call_id: 'call_0_0' });
    expect(errors[0]?.error).toMatch(/Invalid arguments for terminal[\s\S]*command/);
    expect(errors[1]?.error).toMatch(/not valid JSON/);
    expect(shown(ofKind(conversation.events, 'ObservationEvent')[0])).toMatch(
      /^recovered\n\[The command completed with exit code 0\.\]/,
    );
    // Each error was the answer the model read for its call.
    expect(llm.requests[1]?.messages.at(-1)).toEqual({
      role: 'tool',
      content: errors[0]?.error,
      toolCallId: 'call_0_0',
      toolName: 'terminal',
    });
    expect(llm.requests[2]?.messages.at(-1)?.content).toBe(errors[1]?.error);
    expectWireEvents(conversation.events);
  });

  it('answers a call of an unknown tool with an AgentErrorEvent', async () => {
    const { agent, llm } = scriptedAgent([
      { toolCalls: [{ name: 'browser', arguments: { url: 'https://example.com' } }] },
      { text: 'I cannot browse.' },
    ]);
    await using conversation = await start(agent);
    await conversation.sendMessage('Open example.com');
    expect(await conversation.run()).toBe('finished');
    const [action] = ofKind(conversation.events, 'ActionEvent');
    const [error] = ofKind(conversation.events, 'AgentErrorEvent');
    expect(action).toMatchObject({ tool_name: 'browser', action: null });
    expect(error).toMatchObject({
      source: 'agent',
      tool_name: 'browser',
      tool_call_id: 'call_0_0',
    });
    expect(error?.error).toBe(
      "Tool 'browser' not found. Available: terminal, file_editor, finish.",
    );
    expect(llm.requests[1]?.messages.at(-1)?.content).toBe(error?.error);
  });

  it('turns a tool that throws into an AgentErrorEvent', async () => {
    const broken: Tool<{ path: string }> = {
      name: 'broken',
      description: 'Always fails.',
      parameters: z.object({ path: z.string() }),
      async execute({ path: file }) {
        throw new WorkspaceError({ code: 'NOT_FOUND', message: `${file} does not exist` });
      },
    };
    const { agent } = scriptedAgent(
      [{ toolCalls: [{ name: 'broken', arguments: { path: 'x' } }] }, { text: 'Gave up.' }],
      { tools: [broken] },
    );
    await using conversation = await start(agent);
    await conversation.sendMessage('Try it.');
    expect(await conversation.run()).toBe('finished');
    const [error] = ofKind(conversation.events, 'AgentErrorEvent');
    expect(error?.error).toBe('broken failed: x does not exist');
  });

  it('runs several tool calls of one answer in order, as one assistant message', async () => {
    const { agent, llm } = scriptedAgent([
      { text: 'Two at once.', toolCalls: [terminal('echo one > a.txt'), terminal('cat a.txt')] },
      { text: 'Done.' },
    ]);
    await using conversation = await start(agent);
    await conversation.sendMessage('Go.');
    expect(await conversation.run()).toBe('finished');
    const observations = ofKind(conversation.events, 'ObservationEvent');
    expect(observations.map((event) => event.tool_call_id)).toEqual(['call_0_0', 'call_0_1']);
    expect(shown(observations[1])).toMatch(/^one\n\[The command completed with exit code 0\.\]/);
    const transcript = llm.requests[1]?.messages ?? [];
    expect(transcript.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
    ]);
    expect(transcript[2]?.toolCalls).toHaveLength(2);
  });

  it('ends with status error after maxIterations model calls', async () => {
    const script = Array.from({ length: 10 }, (_, index) => ({
      toolCalls: [terminal(`echo ${index}`)],
    }));
    const { agent, llm } = scriptedAgent(script, { maxIterations: 3 });
    await using conversation = await start(agent);
    await conversation.sendMessage('Count.');
    expect(await conversation.run()).toBe('error');
    expect(llm.requests).toHaveLength(3);
    expect(ofKind(conversation.events, 'ActionEvent')).toHaveLength(3);
    const [error] = ofKind(conversation.events, 'ConversationErrorEvent');
    expect(error).toMatchObject({ code: MAX_ITERATIONS_REACHED, source: 'environment' });
    expect(error?.detail).toContain('(3)');
    expect(statuses(conversation.events)).toEqual(['running', 'error']);
    // The limit is per run: the next run gets three more calls.
    expect(await conversation.run()).toBe('error');
    expect(llm.requests).toHaveLength(6);
    expectWireEvents(conversation.events);
  });

  it('detects an agent that repeats the same action and observation', async () => {
    const script = Array.from({ length: 10 }, () => ({ toolCalls: [terminal('echo same')] }));
    const { agent, llm } = scriptedAgent(script);
    await using conversation = await start(agent);
    await conversation.sendMessage('Loop.');
    expect(await conversation.run()).toBe('stuck');
    expect(llm.requests).toHaveLength(4);
    expect(ofKind(conversation.events, 'ObservationEvent')).toHaveLength(4);
    const [error] = ofKind(conversation.events, 'ConversationErrorEvent');
    expect(error?.code).toBe(AGENT_STUCK);
    expect(statuses(conversation.events)).toEqual(['running', 'stuck']);
  });

  it('detects the same failing call repeated, and can be told a threshold or turned off', async () => {
    const bad = { toolCalls: [{ name: 'terminal', arguments: { cmd: 'ls' } }] };
    const first = scriptedAgent(Array.from({ length: 10 }, () => bad));
    await using stuck = await start(first.agent, { stuckDetection: { threshold: 3 } });
    await stuck.sendMessage('Loop.');
    expect(await stuck.run()).toBe('stuck');
    expect(first.llm.requests).toHaveLength(3);

    const second = scriptedAgent(
      Array.from({ length: 10 }, () => bad),
      { maxIterations: 6 },
    );
    await using unchecked = await start(second.agent, { stuckDetection: false });
    await unchecked.sendMessage('Loop.');
    expect(await unchecked.run()).toBe('error');
    expect(second.llm.requests).toHaveLength(6);
  });

  it('does not count different results of the same action as stuck', async () => {
    const script = Array.from({ length: 6 }, () => ({
      toolCalls: [terminal('echo x >> log.txt; wc -l < log.txt')],
    }));
    const { agent } = scriptedAgent([...script, { text: 'Six lines.' }]);
    await using conversation = await start(agent);
    await conversation.sendMessage('Append.');
    expect(await conversation.run()).toBe('finished');
    expect(await readFile(path.join(temp.workingDir, 'log.txt'), 'utf8')).toBe('x\n'.repeat(6));
  });

  it('stops mid-tool with interrupt(), then resumes where it stopped', async () => {
    const { agent, llm } = scriptedAgent([
      { toolCalls: [terminal('touch started && sleep 60 && touch slept')] },
      { toolCalls: [terminal('printf resumed > after.txt')] },
      { toolCalls: [finish('Resumed and done')] },
    ]);
    await using conversation = await start(agent);
    await conversation.sendMessage('Go slowly.');
    const running = conversation.run();
    await vi.waitFor(() => expect(existsSync(path.join(temp.workingDir, 'started'))).toBe(true));
    expect(conversation.state.executionStatus).toBe('running');
    await conversation.interrupt();

    expect(await running).toBe('paused');
    expect(existsSync(path.join(temp.workingDir, 'slept'))).toBe(false);
    const tail = conversation.events.toArray().slice(-4);
    expect(kinds(tail)).toEqual([
      'ActionEvent',
      'AgentErrorEvent',
      'InterruptEvent',
      'ConversationStateUpdateEvent',
    ]);
    expect(tail[1]).toMatchObject({ tool_call_id: 'call_0_0' });
    expect((tail[1] as { error: string }).error).toMatch(/Interrupted/);
    expect(tail[2]).toMatchObject({ source: 'user' });
    expect(conversation.state.executionStatus).toBe('paused');

    expect(await conversation.run()).toBe('finished');
    expect(await readFile(path.join(temp.workingDir, 'after.txt'), 'utf8')).toBe('resumed');
    expect(conversation.agentFinalResponse()).toBe('Resumed and done');
    expect(llm.requests).toHaveLength(3);
    expect(statuses(conversation.events)).toEqual(['running', 'paused', 'running', 'finished']);
    expectWireEvents(conversation.events);
  });

  it('pauses when the run signal fires', async () => {
    const { agent } = scriptedAgent([
      { toolCalls: [terminal('touch started && sleep 60')] },
      { text: 'unreachable' },
    ]);
    await using conversation = await start(agent);
    await conversation.sendMessage('Wait.');
    const controller = new AbortController();
    const running = conversation.run({ signal: controller.signal });
    await vi.waitFor(() => expect(existsSync(path.join(temp.workingDir, 'started'))).toBe(true));
    controller.abort();
    expect(await running).toBe('paused');
    expect(ofKind(conversation.events, 'PauseEvent')).toHaveLength(1);
    expect(ofKind(conversation.events, 'MessageEvent')).toHaveLength(1);

    // A run started with a fired signal pauses before calling the model.
    expect(await conversation.run({ signal: controller.signal })).toBe('paused');
    expect(ofKind(conversation.events, 'PauseEvent')).toHaveLength(2);
    expect(ofKind(conversation.events, 'MessageEvent')).toHaveLength(1);
  });

  it('refuses a second run while one is going on', async () => {
    const { agent } = scriptedAgent([{ toolCalls: [terminal('touch started && sleep 60')] }]);
    await using conversation = await start(agent);
    await conversation.sendMessage('Wait.');
    const running = conversation.run();
    await vi.waitFor(() => expect(existsSync(path.join(temp.workingDir, 'started'))).toBe(true));
    await expect(conversation.run()).rejects.toSatisfy(
      (error) =>
        WorkspaceError.isInstance(error, 'RESOURCE_EXHAUSTED') &&
        /already running/.test((error as Error).message),
    );
    await conversation.interrupt();
    expect(await running).toBe('paused');
  });

  it('records a model failure as a ConversationErrorEvent with status error', async () => {
    const failing: LanguageModel = {
      model: 'failing-double',
      async complete() {
        throw new LLMError({ code: 'LLM_RATE_LIMITED', message: 'slow down' });
      },
    };
    const agent = new Agent({ llm: failing, tools: ['TerminalTool'] });
    await using conversation = await start(agent);
    await conversation.sendMessage('Hi.');
    expect(await conversation.run()).toBe('error');
    const [error] = ofKind(conversation.events, 'ConversationErrorEvent');
    expect(error).toMatchObject({ code: 'LLM_RATE_LIMITED', detail: 'slow down' });
  });

  it('runs again only after a new message once finished', async () => {
    const { agent, llm } = scriptedAgent([{ text: 'First answer.' }, { text: 'Second answer.' }]);
    await using conversation = await start(agent);
    await conversation.sendMessage('One.');
    expect(await conversation.run()).toBe('finished');
    expect(await conversation.run()).toBe('finished');
    expect(llm.requests).toHaveLength(1);

    await conversation.sendMessage('Two.');
    expect(conversation.state.executionStatus).toBe('idle');
    expect(await conversation.run()).toBe('finished');
    expect(conversation.agentFinalResponse()).toBe('Second answer.');
    expect(llm.requests[1]?.messages.map((message) => message.content)).toEqual([
      agent.systemPrompt,
      'One.',
      'First answer.',
      'Two.',
    ]);
  });

  it('answers a message sent during the run before it finishes', async () => {
    const { agent, llm } = scriptedAgent([
      { toolCalls: [terminal('touch started && sleep 60')] },
      { toolCalls: [finish('First task done')] },
      { text: 'Answered the second message.' },
    ]);
    await using conversation = await start(agent);
    await conversation.sendMessage('First.');
    const controller = new AbortController();
    const running = conversation.run({ signal: controller.signal });
    await vi.waitFor(() => expect(existsSync(path.join(temp.workingDir, 'started'))).toBe(true));
    await conversation.sendMessage('Second, sent while running.');
    controller.abort();
    expect(await running).toBe('paused');
    // Resume; the message arrives after the finish call was planned but before the run ends.
    const unsubscribe = conversation.events.subscribe((event) => {
      if (event.kind === 'ActionEvent' && event.tool_name === 'finish') {
        void conversation.sendMessage('Third, sent as the agent finished.');
      }
    });
    expect(await conversation.run()).toBe('finished');
    unsubscribe();
    expect(llm.requests).toHaveLength(3);
    expect(llm.requests[1]?.messages.map((message) => message.content)).toContain(
      'Second, sent while running.',
    );
    expect(llm.requests[2]?.messages.at(-1)).toEqual({
      role: 'user',
      content: 'Third, sent as the agent finished.',
    });
    expect(conversation.agentFinalResponse()).toBe('Answered the second message.');
  });

  it('tells subscribers each event in order until they unsubscribe', async () => {
    const { agent } = scriptedAgent(writeScript());
    await using conversation = await start(agent);
    const seen: ConversationEventWire[] = [];
    const unsubscribe = conversation.events.subscribe((event) => seen.push(event));
    conversation.events.subscribe(() => {
      throw new Error('a broken listener');
    });
    await conversation.sendMessage('Write it.');
    expect(await conversation.run()).toBe('finished');
    expect(seen).toEqual(conversation.events.toArray());
    unsubscribe();
    await conversation.sendMessage('More?');
    expect(seen).toHaveLength(conversation.events.length - 2); // the message and the idle update
  });

  it('refuses to be used after close()', async () => {
    const { agent } = scriptedAgent(writeScript());
    const conversation = await start(agent);
    await conversation.close();
    await conversation.close();
    await expect(conversation.sendMessage('Hi.')).rejects.toSatisfy((error) =>
      WorkspaceError.isInstance(error, 'WORKSPACE_CLOSED'),
    );
    await expect(conversation.run()).rejects.toSatisfy((error) =>
      WorkspaceError.isInstance(error, 'WORKSPACE_CLOSED'),
    );
  });
});

describe('LocalConversation persistence', () => {
  it('reopens with its history and continues it', async () => {
    const script: ScriptedStep[] = [
      ...writeScript(),
      { toolCalls: [terminal('printf " again" >> hello.txt')] },
      { toolCalls: [finish('Appended')] },
    ];
    const first = scriptedAgent(script);
    const conversation = await start(first.agent, { persistenceDir: temp.persistenceDir });
    await conversation.sendMessage('Create hello.txt saying hello.');
    expect(await conversation.run()).toBe('finished');
    const before = conversation.events.toArray();
    await conversation.close();

    const lines = (await readFile(path.join(temp.persistenceDir, EVENTS_FILE), 'utf8')).trimEnd();
    expect(lines.split('\n')).toHaveLength(before.length);
    const state = JSON.parse(await readFile(path.join(temp.persistenceDir, STATE_FILE), 'utf8'));
    expect(state).toMatchObject({
      id: conversation.id,
      execution_status: 'finished',
      agent: { kind: 'Agent', llm: { kind: 'ScriptedLLM' } },
    });

    const second = scriptedAgent(script);
    await using reopened = await LocalConversation.open({
      persistenceDir: temp.persistenceDir,
      agent: second.agent,
      workspace: temp.workspace,
    });
    expect(reopened.id).toBe(conversation.id);
    expect(reopened.events.toArray()).toStrictEqual(before);
    expect(reopened.state.executionStatus).toBe('finished');
    expect(reopened.agentFinalResponse()).toBe('Wrote hello.txt');

    await reopened.sendMessage('Append " again".');
    expect(await reopened.run()).toBe('finished');
    expect(await readFile(path.join(temp.workingDir, 'hello.txt'), 'utf8')).toBe('hello\n again');
    expect(reopened.agentFinalResponse()).toBe('Appended');
    // The model saw the whole history: the first run's calls and results, then the new message.
    const transcript = second.llm.requests[0]?.messages ?? [];
    expect(transcript.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'user',
    ]);
    expect(transcript[5]?.content).toMatch(/^hello\n\[The command completed with exit code 0\.\]/);
    await reopened.close();

    const third = await LocalConversation.open({
      persistenceDir: temp.persistenceDir,
      agent: second.agent,
      workspace: temp.workspace,
    });
    expect(third.events.toArray()).toStrictEqual(reopened.events.toArray());
    await third.close();
    expectWireEvents(third.events);
  });

  it('skips a torn last line and appends after it cleanly', async () => {
    const { agent } = scriptedAgent(writeScript());
    const conversation = await start(agent, { persistenceDir: temp.persistenceDir });
    await conversation.sendMessage('Create hello.txt saying hello.');
    await conversation.run();
    const before = conversation.events.toArray();
    await conversation.close();
    const eventsPath = path.join(temp.persistenceDir, EVENTS_FILE);
    await appendFile(eventsPath, '{"kind":"MessageEvent","id":"torn","llm_mess');

    const reopened = await LocalConversation.open({
      persistenceDir: temp.persistenceDir,
      agent,
      workspace: temp.workspace,
    });
    expect(reopened.events.toArray()).toStrictEqual(before);
    await reopened.sendMessage('Still there?');
    await reopened.close();

    const lines = (await readFile(eventsPath, 'utf8')).split('\n');
    expect(lines.at(-1)).toBe('');
    const parsed = lines
      .slice(0, -1)
      .map((line) => conversationEventWireSchema.parse(JSON.parse(line)));
    expect(parsed).toHaveLength(before.length + 2); // the message and the idle status update
    expect(parsed.at(-2)).toMatchObject({ kind: 'MessageEvent', source: 'user' });
  });

  it('refuses a corrupt event in the middle of the log', async () => {
    const { agent } = scriptedAgent(writeScript());
    const conversation = await start(agent, { persistenceDir: temp.persistenceDir });
    await conversation.sendMessage('One.');
    await conversation.sendMessage('Two.');
    await conversation.close();
    const eventsPath = path.join(temp.persistenceDir, EVENTS_FILE);
    const lines = (await readFile(eventsPath, 'utf8')).split('\n');
    lines[0] = '{"kind":"Nonsense"}';
    await writeFile(eventsPath, lines.join('\n'));
    await expect(
      LocalConversation.open({
        persistenceDir: temp.persistenceDir,
        agent,
        workspace: temp.workspace,
      }),
    ).rejects.toSatisfy(
      (error) =>
        WorkspaceError.isInstance(error, 'INVALID_CONFIG') &&
        /line at byte 0 is not/.test(String(error)),
    );
  });

  it('comes back paused after a crash mid-run', async () => {
    const { agent } = scriptedAgent(writeScript());
    const conversation = await start(agent, { persistenceDir: temp.persistenceDir });
    await conversation.sendMessage('Create hello.txt saying hello.');
    await conversation.close();
    // What a process that died during a run leaves behind.
    const statePath = path.join(temp.persistenceDir, STATE_FILE);
    const state = JSON.parse(await readFile(statePath, 'utf8'));
    await writeFile(statePath, JSON.stringify({ ...state, execution_status: 'running' }));

    await using reopened = await LocalConversation.open({
      persistenceDir: temp.persistenceDir,
      agent,
      workspace: temp.workspace,
    });
    expect(reopened.state.executionStatus).toBe('paused');
    expect(JSON.parse(await readFile(statePath, 'utf8')).execution_status).toBe('paused');
    expect(await reopened.run()).toBe('finished');
    expect(await readFile(path.join(temp.workingDir, 'hello.txt'), 'utf8')).toBe('hello\n');
  });

  it('answers calls left without a result by a crash, so the model can go on', async () => {
    const { agent, llm } = scriptedAgent(writeScript());
    const conversation = await start(agent, { persistenceDir: temp.persistenceDir });
    await conversation.sendMessage('Create hello.txt saying hello.');
    await conversation.run();
    await conversation.close();
    // Keep the log up to the first action only, as if the process died while it ran.
    const eventsPath = path.join(temp.persistenceDir, EVENTS_FILE);
    const lines = (await readFile(eventsPath, 'utf8')).split('\n');
    const actionLine = lines.findIndex((line) => line.includes('"ActionEvent"'));
    await writeFile(eventsPath, `${lines.slice(0, actionLine + 1).join('\n')}\n`);
    const statePath = path.join(temp.persistenceDir, STATE_FILE);
    const state = JSON.parse(await readFile(statePath, 'utf8'));
    await writeFile(statePath, JSON.stringify({ ...state, execution_status: 'running' }));

    const second = scriptedAgent(writeScript());
    await using reopened = await LocalConversation.open({
      persistenceDir: temp.persistenceDir,
      agent: second.agent,
      workspace: temp.workspace,
    });
    expect(await reopened.run()).toBe('finished');
    expect(second.llm.requests[0]?.messages.at(-1)).toEqual({
      role: 'tool',
      content: INTERRUPTED_CALL_RESULT,
      toolCallId: 'call_0_0',
      toolName: 'file_editor',
    });
    expect(llm.requests).toHaveLength(3);
  });

  it('refuses to open a directory without a conversation, or to create over one', async () => {
    const { agent } = scriptedAgent(writeScript());
    await expect(
      LocalConversation.open({
        persistenceDir: temp.persistenceDir,
        agent,
        workspace: temp.workspace,
      }),
    ).rejects.toSatisfy((error) => WorkspaceError.isInstance(error, 'NOT_FOUND'));
    const conversation = await start(agent, { persistenceDir: temp.persistenceDir });
    await conversation.close();
    await expect(start(agent, { persistenceDir: temp.persistenceDir })).rejects.toSatisfy(
      (error) =>
        WorkspaceError.isInstance(error, 'INVALID_ARGUMENT') &&
        (error as WorkspaceError).details.field === 'persistenceDir',
    );
  });
});
