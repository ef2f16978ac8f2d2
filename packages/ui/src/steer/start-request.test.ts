import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/api-error.js';
import {
  describeStartError,
  fieldLabelOf,
  type NewConversationFields,
  startConversationBody,
} from './start-request.js';

const fields: NewConversationFields = {
  model: ' openai/gpt-4o-mini ',
  apiKey: '',
  baseUrl: '',
  workingDir: '/srv/project',
  tools: ['TerminalTool', 'FileEditorTool'],
  confirmEveryAction: false,
  firstMessage: '',
};

describe('startConversationBody', () => {
  it('leaves out the empty optional fields', () => {
    expect(startConversationBody(fields)).toEqual({
      workspace: { kind: 'LocalWorkspace', working_dir: '/srv/project' },
      agent: {
        kind: 'Agent',
        llm: { kind: 'LLM', model: 'openai/gpt-4o-mini' },
        tools: [{ name: 'TerminalTool' }, { name: 'FileEditorTool' }],
      },
      confirmation_policy: { kind: 'NeverConfirm' },
    });
  });

  it('sends the key, the base URL, AlwaysConfirm and a first message that runs', () => {
    const body = startConversationBody({
      ...fields,
      apiKey: 'sk-test',
      baseUrl: ' http://127.0.0.1:9/v1 ',
      confirmEveryAction: true,
      firstMessage: 'Fix the tests\n',
      tools: [],
    });
    expect(body.agent.llm).toEqual({
      kind: 'LLM',
      model: 'openai/gpt-4o-mini',
      api_key: 'sk-test',
      base_url: 'http://127.0.0.1:9/v1',
    });
    expect(body.agent.tools).toEqual([]);
    expect(body.confirmation_policy).toEqual({ kind: 'AlwaysConfirm' });
    expect(body.initial_message).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'Fix the tests' }],
      run: true,
    });
  });
});

describe('describeStartError', () => {
  it("names the form field of each of a 422's issues", () => {
    const detail = JSON.stringify([
      { type: 'value_error', loc: ['body', 'agent', 'llm', 'base_url'], msg: 'Invalid URL' },
      { type: 'missing', loc: ['body', 'workspace', 'working_dir'], msg: 'Required' },
      { type: 'x', loc: ['body', 'max_iterations'], msg: 'Too big' },
    ]);
    const error = new ApiError(422, `The agent-server answered 422: ${detail}`);
    expect(describeStartError(error)).toBe(
      'The server refused these fields: Base URL: Invalid URL; Working directory: Required; max_iterations: Too big',
    );
  });

  it('says the server refused for other 4xx answers', () => {
    const error = new ApiError(403, 'The agent-server answered 403: conversations are disabled');
    expect(describeStartError(error)).toBe(
      'The server refused to start the conversation. The agent-server answered 403: conversations are disabled',
    );
  });

  it('passes other failures through', () => {
    expect(describeStartError(new ApiError(null, 'Cannot reach the agent-server.'))).toBe(
      'Cannot reach the agent-server.',
    );
    expect(describeStartError(new ApiError(422, 'The agent-server answered 422: bad'))).toBe(
      'The server refused to start the conversation. The agent-server answered 422: bad',
    );
    expect(describeStartError(new Error('boom'))).toBe('boom');
  });
});

describe('fieldLabelOf', () => {
  it('maps body paths to the form labels', () => {
    expect(fieldLabelOf('agent.llm.model')).toBe('Model');
    expect(fieldLabelOf('agent.tools.0.name')).toBe('Tools');
    expect(fieldLabelOf('agent.llm.base_url')).toBe('Base URL');
    expect(fieldLabelOf('agent.llm')).toBe('agent.llm');
  });
});
