import { describe, expect, it } from 'vitest';
import { conversationRowOf } from './list-conversations.js';

describe('conversationRowOf', () => {
  it('reads the model, the summed cost and the working directory', () => {
    const row = conversationRowOf({
      id: 'c1',
      title: 'Fix it',
      execution_status: 'running',
      updated_at: '2026-11-27T07:11:03.390000Z',
      agent: { llm: { model: 'openai/gpt-4o-mini' } },
      workspace: { working_dir: '/work' },
      stats: {
        usage_to_metrics: {
          default: { accumulated_cost: 0.25 },
          condenser: { accumulated_cost: 0.5 },
        },
      },
    });
    expect(row).toEqual({
      id: 'c1',
      title: 'Fix it',
      status: 'running',
      model: 'openai/gpt-4o-mini',
      updatedAt: '2026-11-27T07:11:03.390000Z',
      cost: 0.75,
      workingDir: '/work',
    });
  });

  it('names a scripted model and tolerates missing fields', () => {
    const row = conversationRowOf({ id: 'c2', agent: { llm: { kind: 'ScriptedLLM' } } });
    expect(row).toMatchObject({
      title: null,
      status: 'unknown',
      model: 'scripted',
      cost: 0,
      workingDir: null,
    });
  });
});
