import { describe, expect, it } from 'vitest';
import { expectZodIssueAt } from '../test-support/expect-zod-issue.js';
import {
  bashEventSearchQueryFromWire,
  bashEventSearchQueryToSearchParams,
  bashEventSearchQueryWireSchema,
} from './bash-event-search-query.js';

const COMMAND_ID = '5b8f3c0e2a9d4e7f8c1b6a3d2e4f5a6b';

describe('BashEventSearchQuery', () => {
  it('applies the defaults to an empty query', () => {
    expect(bashEventSearchQueryFromWire({})).toEqual({ sortOrder: 'TIMESTAMP', limit: 100 });
  });

  it('coerces the string values of the OpenHands client poll', () => {
    const query = bashEventSearchQueryFromWire({
      command_id__eq: COMMAND_ID,
      kind__eq: 'BashOutput',
      order__gt: '3',
      sort_order: 'TIMESTAMP',
      limit: '100',
    });
    expect(query).toEqual({
      kindEq: 'BashOutput',
      commandIdEq: COMMAND_ID,
      orderGt: 3,
      sortOrder: 'TIMESTAMP',
      limit: 100,
    });
  });

  it('normalises a dashed command id and offset timestamps', () => {
    const query = bashEventSearchQueryFromWire({
      command_id__eq: '5B8F3C0E-2A9D-4E7F-8C1B-6A3D2E4F5A6B',
      timestamp__gte: '2026-08-22T12:00:00+02:00',
      timestamp__lt: '2026-08-22T11:00:00',
    });
    expect(query.commandIdEq).toBe(COMMAND_ID);
    expect(query.timestampGte).toBe('2026-08-22T10:00:00.000000Z');
    expect(query.timestampLt).toBe('2026-08-22T11:00:00.000000Z');
  });

  it('parses a full query and serialises it back to the same parameters', () => {
    const wire = {
      kind__eq: 'BashCommand',
      command_id__eq: COMMAND_ID,
      timestamp__gte: '2026-08-22T10:00:00.000000Z',
      timestamp__lt: '2026-08-22T11:00:00.500000Z',
      order__gt: 7,
      sort_order: 'TIMESTAMP_DESC',
      page_id: '20260822100002000000_BashCommand_x',
      limit: 5,
    };
    expect(bashEventSearchQueryWireSchema.parse(wire)).toStrictEqual(wire);
    const query = bashEventSearchQueryFromWire(wire);
    expect(query).toStrictEqual({
      kindEq: wire.kind__eq,
      commandIdEq: wire.command_id__eq,
      timestampGte: wire.timestamp__gte,
      timestampLt: wire.timestamp__lt,
      orderGt: wire.order__gt,
      sortOrder: wire.sort_order,
      pageId: wire.page_id,
      limit: wire.limit,
    });
    expect([...bashEventSearchQueryToSearchParams(query)]).toStrictEqual(
      Object.entries(wire).map(([key, value]) => [key, String(value)]),
    );
  });

  it('serialises to URL query parameters that parse back', () => {
    const query = bashEventSearchQueryFromWire({ command_id__eq: COMMAND_ID, order__gt: 2 });
    const params = bashEventSearchQueryToSearchParams(query);
    expect(params.toString()).toBe(
      `command_id__eq=${COMMAND_ID}&order__gt=2&sort_order=TIMESTAMP&limit=100`,
    );
    expect(bashEventSearchQueryFromWire(Object.fromEntries(params))).toEqual(query);
  });

  it('names the bad parameter', () => {
    expectZodIssueAt(() => bashEventSearchQueryFromWire({ limit: '0' }), ['limit']);
    expectZodIssueAt(() => bashEventSearchQueryFromWire({ limit: '101' }), ['limit']);
    expectZodIssueAt(() => bashEventSearchQueryFromWire({ limit: 'ten' }), ['limit']);
    expectZodIssueAt(() => bashEventSearchQueryFromWire({ order__gt: '1.5' }), ['order__gt']);
    expectZodIssueAt(() => bashEventSearchQueryFromWire({ kind__eq: 'BashError' }), ['kind__eq']);
    expectZodIssueAt(() => bashEventSearchQueryFromWire({ sort_order: 'ASC' }), ['sort_order']);
    expectZodIssueAt(
      () => bashEventSearchQueryFromWire({ command_id__eq: COMMAND_ID.slice(1) }),
      ['command_id__eq'],
    );
    expectZodIssueAt(
      () => bashEventSearchQueryFromWire({ timestamp__gte: '22/08/2026' }),
      ['timestamp__gte'],
    );
  });
});
