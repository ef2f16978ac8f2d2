import { describe, expect, it } from 'vitest';
import { expectZodIssueAt } from '../test-support/expect-zod-issue.js';
import { HEALTH_OK, healthStatusSchema, READY, readyStatusSchema } from './health-status.js';
import { SUCCESS, successSchema } from './success.js';

describe('health bodies', () => {
  it('builds the OpenHands bodies', () => {
    expect(HEALTH_OK).toEqual({ status: 'ok' });
    expect(READY).toEqual({ status: 'ready' });
    expect(SUCCESS).toEqual({ success: true });
  });

  it('parses them', () => {
    expect(healthStatusSchema.parse({ status: 'ok' })).toEqual(HEALTH_OK);
    expect(readyStatusSchema.parse({ status: 'ready' })).toEqual(READY);
    expect(
      readyStatusSchema.parse({ status: 'initializing', message: 'Server is still initializing' }),
    ).toStrictEqual({ status: 'initializing', message: 'Server is still initializing' });
    expect(successSchema.parse({ success: false })).toEqual({ success: false });
    expect(successSchema.parse({})).toEqual(SUCCESS);
  });

  it('rejects wrong bodies at the field', () => {
    expectZodIssueAt(() => healthStatusSchema.parse({ status: 'down' }), ['status']);
    expectZodIssueAt(() => readyStatusSchema.parse({ status: 'starting' }), ['status']);
    expectZodIssueAt(() => readyStatusSchema.parse({ status: 'initializing' }), ['message']);
    expectZodIssueAt(() => successSchema.parse({ success: 'yes' }), ['success']);
  });
});
