import { describe, expect, it } from 'vitest';
import { newHexId } from '../ids/hex-id.js';
import { expectZodIssueAt } from '../test-support/expect-zod-issue.js';
import { httpErrorBody } from './http-error-body.js';
import {
  internalServerErrorBody,
  internalServerErrorBodySchema,
} from './internal-server-error-body.js';

describe('error bodies', () => {
  it('builds the 4xx body', () => {
    expect(httpErrorBody('File not found')).toEqual({ detail: 'File not found' });
    expect(httpErrorBody({ code: 'x' })).toEqual({ detail: { code: 'x' } });
  });

  it('builds 5xx bodies with and without an error id', () => {
    expect(internalServerErrorBody('boom')).toStrictEqual({
      detail: 'Internal Server Error',
      exception: 'boom',
    });
    const errorId = newHexId();
    const body = internalServerErrorBody('boom', errorId);
    expect(body).toEqual({ detail: 'Internal Server Error', exception: 'boom', error_id: errorId });
    expect(internalServerErrorBodySchema.parse(body)).toEqual(body);
  });

  it('rejects a malformed 5xx body at the field', () => {
    expectZodIssueAt(
      () => internalServerErrorBodySchema.parse({ detail: 'Oops', exception: 'x' }),
      ['detail'],
    );
    expectZodIssueAt(
      () => internalServerErrorBodySchema.parse(internalServerErrorBody('x', 'abc')),
      ['error_id'],
    );
  });
});
