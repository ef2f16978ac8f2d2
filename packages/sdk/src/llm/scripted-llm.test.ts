import { describe, expect, it } from 'vitest';
import { LLMError } from './llm-error.js';
import type { LLMMessage } from './llm-message.js';
import { SCRIPTED_MODEL, ScriptedLLM, scriptedLLMConfigSchema } from './scripted-llm.js';

const user: LLMMessage = { role: 'user', content: 'go' };
const system: LLMMessage = { role: 'system', content: 'be brief' };

/** A transcript in which the model has answered `answered` times. */
function transcript(answered: number): LLMMessage[] {
  const messages = [system, user];
  for (let index = 0; index < answered; index++) {
    messages.push({ role: 'assistant', content: `answer ${index}` }, user);
  }
  return messages;
}

const script = [
  { text: 'Listing first.', toolCalls: [{ name: 'terminal', arguments: { command: 'ls' } }] },
  { toolCalls: [{ name: 'terminal', arguments: '{"command": ', id: 'broken' }] },
  { text: 'All done.' },
];

describe('ScriptedLLM', () => {
  it('says what it is', () => {
    expect(new ScriptedLLM({ script }).model).toBe(SCRIPTED_MODEL);
    expect(SCRIPTED_MODEL).toBe('scripted');
  });

  it('answers the step after the assistant messages already in the transcript', async () => {
    const llm = new ScriptedLLM({ script });
    const first = await llm.complete({ messages: transcript(0), tools: [] });
    expect(first.message).toEqual({
      role: 'assistant',
      content: 'Listing first.',
      toolCalls: [{ id: 'call_0_0', name: 'terminal', arguments: '{"command":"ls"}' }],
    });
    const second = await llm.complete({ messages: transcript(1), tools: [] });
    // Raw argument text is passed on as written, malformed or not.
    expect(second.message.toolCalls).toEqual([
      { id: 'broken', name: 'terminal', arguments: '{"command": ' },
    ]);
    expect(second.message.content).toBe('');
    const third = await llm.complete({ messages: transcript(2), tools: [] });
    expect(third.message).toEqual({ role: 'assistant', content: 'All done.' });
    expect(new Set([first.id, second.id, third.id]).size).toBe(3);
    // Stateless: asking again for the same transcript gives the same answer.
    expect(await llm.complete({ messages: transcript(0), tools: [] })).toEqual(first);
  });

  it('carries on after the last step its tool call ids name, in a transcript cut to its newest events', async () => {
    const long = Array.from({ length: 6 }, (_, step) => ({
      toolCalls: [{ name: 'terminal', arguments: { command: `echo ${step}` } }],
    }));
    const llm = new ScriptedLLM({ script: long });
    // Only the answer of step 3 (and its observation) is left of the history.
    const cut: LLMMessage[] = [
      system,
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call_3_0', name: 'terminal', arguments: '{"command":"echo 3"}' }],
      },
      { role: 'tool', content: '3', toolCallId: 'call_3_0', toolName: 'terminal' },
    ];
    const next = await llm.complete({ messages: cut, tools: [] });
    expect(next.message.toolCalls).toEqual([
      { id: 'call_4_0', name: 'terminal', arguments: '{"command":"echo 4"}' },
    ]);
    // A newer answer that names no step (text) does not hide the step named before it.
    const afterText = await llm.complete({
      messages: [...cut, { role: 'assistant', content: 'Looked at it.' }],
      tools: [],
    });
    expect(afterText.message.toolCalls).toEqual([
      { id: 'call_4_0', name: 'terminal', arguments: '{"command":"echo 4"}' },
    ]);
  });

  it('answers a final text without tool calls past the end of the script', async () => {
    const llm = new ScriptedLLM({ script });
    const past = await llm.complete({ messages: transcript(3), tools: [] });
    expect(past.message.toolCalls).toBeUndefined();
    expect(past.message.content).toMatch(/script has ended \(3 steps\)/);
  });

  it('starts the script over past its end with repeat, also from its JSON form', async () => {
    const cycle = [
      { toolCalls: [{ name: 'terminal', arguments: { command: 'true' } }] },
      { text: 'Ran it.' },
    ];
    const llm = new ScriptedLLM({ script: cycle, repeat: true });
    expect(llm.toConfig()).toMatchObject({ kind: 'ScriptedLLM', repeat: true });
    const copy = ScriptedLLM.fromConfig(JSON.parse(JSON.stringify(llm.toConfig())));
    for (const model of [llm, copy]) {
      const fifth = await model.complete({ messages: transcript(4), tools: [] });
      // Step 4 answers script[0]; its call id keeps the step's own number.
      expect(fifth.message.toolCalls).toEqual([
        { id: 'call_4_0', name: 'terminal', arguments: '{"command":"true"}' },
      ]);
      const sixth = await model.complete({ messages: transcript(5), tools: [] });
      expect(sixth.message).toEqual({ role: 'assistant', content: 'Ran it.' });
    }
    // Without repeat the same script ends.
    const once = await new ScriptedLLM({ script: cycle }).complete({
      messages: transcript(4),
      tools: [],
    });
    expect(once.message.content).toMatch(/script has ended \(2 steps\)/);
  });

  it('round-trips through its JSON form', async () => {
    const llm = new ScriptedLLM({ script });
    const config = llm.toConfig();
    expect(config).toEqual({
      kind: 'ScriptedLLM',
      script: [
        {
          text: 'Listing first.',
          tool_calls: [{ name: 'terminal', arguments: { command: 'ls' } }],
        },
        { tool_calls: [{ name: 'terminal', arguments: '{"command": ', id: 'broken' }] },
        { text: 'All done.' },
      ],
    });
    expect(scriptedLLMConfigSchema.parse(config)).toEqual(config);
    const copy = ScriptedLLM.fromConfig(JSON.parse(JSON.stringify(config)));
    expect(copy.length).toBe(3);
    for (let answered = 0; answered <= 3; answered++) {
      const request = { messages: transcript(answered), tools: [] };
      expect(await copy.complete(request)).toEqual(await llm.complete(request));
    }
  });

  it('is not changed by changes to the script it was given or the config it gave', async () => {
    const mine = [{ toolCalls: [{ name: 'terminal', arguments: { command: 'ls' } }] }];
    const llm = new ScriptedLLM({ script: mine });
    mine[0]!.toolCalls[0]!.arguments.command = 'rm -rf /';
    (llm.toConfig().script[0]!.tool_calls![0]!.arguments as Record<string, string>).command = 'x';
    const answer = await llm.complete({ messages: transcript(0), tools: [] });
    expect(answer.message.toolCalls?.[0]?.arguments).toBe('{"command":"ls"}');
  });

  it('refuses a bad config with INVALID_CONFIG naming the field', () => {
    const bad = [
      [{ kind: 'LLM', script: [] }, 'kind'],
      [
        { kind: 'ScriptedLLM', script: [{ tool_calls: [{ arguments: {} }] }] },
        'script.0.tool_calls.0.name',
      ],
      [{ kind: 'ScriptedLLM', script: [{}] }, 'script.0'],
      [{ kind: 'ScriptedLLM', script: [], repeat: true }, 'script'],
      [{ kind: 'ScriptedLLM', script: [{ text: 'x' }], repeat: 'yes' }, 'repeat'],
    ] as const;
    for (const [config, field] of bad) {
      let caught: unknown;
      try {
        ScriptedLLM.fromConfig(config);
      } catch (error) {
        caught = error;
      }
      expect(LLMError.isInstance(caught, 'INVALID_CONFIG'), field).toBe(true);
      expect((caught as LLMError).details.fields).toContain(field);
    }
    expect(() => new ScriptedLLM({ script: [{}] })).toThrow(
      /a step needs text, tool_calls or both/,
    );
  });

  it('refuses a call whose signal has fired', async () => {
    const controller = new AbortController();
    controller.abort();
    const call = new ScriptedLLM({ script }).complete({
      messages: transcript(0),
      tools: [],
      signal: controller.signal,
    });
    await expect(call).rejects.toSatisfy((error) => LLMError.isInstance(error, 'ABORTED'));
  });
});
