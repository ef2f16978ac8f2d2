import { describe, expect, it } from 'vitest';
import { expectZodIssueAt } from '../test-support/expect-zod-issue.js';
import { errorEnvelopeSchema } from './error-envelope.js';

/** A FastAPI 422 for `POST /api/bash/execute_bash_command` with `{"timeout": 5}`. */
const validationWire = {
  detail: [
    { type: 'missing', loc: ['body', 'command'], msg: 'Field required', input: { timeout: 5 } },
    {
      type: 'greater_than_equal',
      loc: ['query', 'limit'],
      msg: 'Input should be greater than or equal to 1',
      input: '0',
      ctx: { ge: 1 },
    },
  ],
};

const unhandledWire = {
  detail: 'Internal Server Error',
  exception: "KeyError: 'x'",
  error_id: '0f8fad5bd9cb469fa16570867728950e',
};

describe('ErrorEnvelope', () => {
  it('parses a 422 validation body', () => {
    expect(errorEnvelopeSchema.parse(validationWire)).toStrictEqual(validationWire);
  });

  it('drops keys FastAPI may add to an issue, such as url', () => {
    const withUrl = {
      detail: [{ ...validationWire.detail[0], url: 'https://errors.pydantic.dev/2/v/missing' }],
    };
    expect(errorEnvelopeSchema.parse(withUrl).detail).toStrictEqual([validationWire.detail[0]]);
  });

  it('parses string, object and 5xx bodies', () => {
    expect(errorEnvelopeSchema.parse({ detail: 'Unauthorized' })).toStrictEqual({
      detail: 'Unauthorized',
    });
    expect(
      errorEnvelopeSchema.parse({ detail: { reason: 'busy' }, retryable: true }),
    ).toStrictEqual({ detail: { reason: 'busy' }, retryable: true });
    expect(errorEnvelopeSchema.parse(unhandledWire)).toStrictEqual({
      detail: 'Internal Server Error',
      exception: "KeyError: 'x'",
      error_id: '0f8fad5bd9cb469fa16570867728950e',
    });
    const debug = { detail: 'Internal Server Error', exception: 'boom', traceback: 'Traceback…' };
    expect(errorEnvelopeSchema.parse(debug)).toStrictEqual(debug);
  });

  it('names the bad field', () => {
    expectZodIssueAt(() => errorEnvelopeSchema.parse({ message: 'x' }), ['detail']);
    expectZodIssueAt(() => errorEnvelopeSchema.parse({ detail: 'x', exception: 1 }), ['exception']);
    expectZodIssueAt(
      () => errorEnvelopeSchema.parse({ detail: 'x', retryable: 'yes' }),
      ['retryable'],
    );
  });
});
