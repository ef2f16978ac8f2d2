import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bashEventWireSchema } from '../models/bash-event.js';
import { bashEventSearchQueryWireSchema } from '../models/bash-event-search-query.js';
import { errorEnvelopeSchema } from '../models/error-envelope.js';
import { executeBashRequestWireSchema } from '../models/execute-bash-request.js';
import { type ValidationLocation, validationErrorBody } from './validation-error-body.js';

/** Parses `input` with `schema`, which must fail, and builds the 422 body. */
function bodyFor(schema: z.ZodType, input: unknown, location: ValidationLocation = 'body') {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('expected the parse to fail');
  return validationErrorBody(result.error, location, input);
}

describe('validationErrorBody', () => {
  it('reports a missing body field like FastAPI', () => {
    expect(bodyFor(executeBashRequestWireSchema, { timeout: 5 })).toEqual({
      detail: [
        { type: 'missing', loc: ['body', 'command'], msg: 'Field required', input: { timeout: 5 } },
      ],
    });
  });

  it('reports query bounds with the raw value and ctx', () => {
    expect(bodyFor(bashEventSearchQueryWireSchema, { limit: '0' }, 'query')).toEqual({
      detail: [
        {
          type: 'greater_than_equal',
          loc: ['query', 'limit'],
          msg: 'Input should be greater than or equal to 1',
          input: '0',
          ctx: { ge: 1 },
        },
      ],
    });
    expect(bodyFor(bashEventSearchQueryWireSchema, { limit: '101' }, 'query').detail[0]).toEqual({
      type: 'less_than_equal',
      loc: ['query', 'limit'],
      msg: 'Input should be less than or equal to 100',
      input: '101',
      ctx: { le: 100 },
    });
  });

  it('maps type, length, enum and exclusive-bound issues to pydantic types', () => {
    const body = bodyFor(executeBashRequestWireSchema, { command: '', cwd: 7, timeout: 0 });
    expect(body.detail.map(({ type, loc }) => ({ type, loc }))).toEqual([
      { type: 'string_too_short', loc: ['body', 'command'] },
      { type: 'string_type', loc: ['body', 'cwd'] },
      { type: 'greater_than', loc: ['body', 'timeout'] },
    ]);
    expect(body.detail[0]?.msg).toBe('String should have at least 1 character');
    expect(body.detail[2]?.ctx).toEqual({ gt: 0 });

    const sort = bodyFor(bashEventSearchQueryWireSchema, { sort_order: 'ASC' }, 'query');
    expect(sort.detail[0]).toMatchObject({
      type: 'enum',
      msg: "Input should be 'TIMESTAMP' or 'TIMESTAMP_DESC'",
      input: 'ASC',
    });
  });

  it('reports an unknown kind tag and array positions', () => {
    const body = bodyFor(z.array(bashEventWireSchema), [{ kind: 'BashInput' }]);
    expect(body.detail[0]).toMatchObject({
      type: 'union_tag_invalid',
      loc: ['body', 0, 'kind'],
      input: 'BashInput',
      ctx: { discriminator: "'kind'", tag: 'BashInput' },
    });
    expect(bodyFor(bashEventWireSchema, {}).detail[0]?.type).toBe('union_tag_not_found');
  });

  it('reports each unknown key of a strict object', () => {
    const body = bodyFor(z.strictObject({ a: z.string() }), { a: 'x', b: 1, c: 2 });
    expect(body.detail).toEqual([
      {
        type: 'extra_forbidden',
        loc: ['body', 'b'],
        msg: 'Extra inputs are not permitted',
        input: 1,
      },
      {
        type: 'extra_forbidden',
        loc: ['body', 'c'],
        msg: 'Extra inputs are not permitted',
        input: 2,
      },
    ]);
  });

  it('produces a body the error envelope schema accepts', () => {
    const body = bodyFor(executeBashRequestWireSchema, 'not an object');
    expect(body.detail[0]).toMatchObject({
      type: 'dict_type',
      loc: ['body'],
      input: 'not an object',
    });
    expect(errorEnvelopeSchema.parse(body)).toEqual(body);
  });
});
