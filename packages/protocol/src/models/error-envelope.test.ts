import { describe, expect, it } from 'vitest';
import { expectZodIssueAt } from '../test-support/expect-zod-issue.js';
import { errorEnvelopeFromWire, errorEnvelopeToWire } from './error-envelope.js';

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
    const envelope = errorEnvelopeFromWire(validationWire);
    expect(envelope.detail).toEqual(validationWire.detail);
    expect(errorEnvelopeToWire(envelope)).toStrictEqual(validationWire);
  });

  it('drops keys FastAPI may add to an issue, such as url', () => {
    const withUrl = {
      detail: [{ ...validationWire.detail[0], url: 'https://errors.pydantic.dev/2/v/missing' }],
    };
    expect(errorEnvelopeFromWire(withUrl).detail).toEqual([validationWire.detail[0]]);
  });

  it('parses string, object and 5xx bodies into camelCase', () => {
    expect(errorEnvelopeFromWire({ detail: 'Unauthorized' })).toEqual({ detail: 'Unauthorized' });
    expect(errorEnvelopeFromWire({ detail: { reason: 'busy' }, retryable: true })).toEqual({
      detail: { reason: 'busy' },
      retryable: true,
    });
    expect(errorEnvelopeFromWire(unhandledWire)).toEqual({
      detail: 'Internal Server Error',
      exception: "KeyError: 'x'",
      errorId: '0f8fad5bd9cb469fa16570867728950e',
    });
    expect(errorEnvelopeToWire(errorEnvelopeFromWire(unhandledWire))).toStrictEqual(unhandledWire);
  });

  it('names the bad field', () => {
    expectZodIssueAt(() => errorEnvelopeFromWire({ message: 'x' }), ['detail']);
    expectZodIssueAt(() => errorEnvelopeFromWire({ detail: 'x', exception: 1 }), ['exception']);
    expectZodIssueAt(() => errorEnvelopeFromWire({ detail: 'x', retryable: 'yes' }), ['retryable']);
  });
});
