import { describe, expect, it } from 'vitest';
import { expectZodIssueAt } from '../test-support/expect-zod-issue.js';
import { bashCommandFromWire } from './bash-command.js';
import { bashEventPageFromWire, bashEventPageWireSchema } from './bash-event-page.js';
import { bashOutputFromWire } from './bash-output.js';

const COMMAND_ID = '5b8f3c0e2a9d4e7f8c1b6a3d2e4f5a6b';

const pageWire = {
  items: [
    {
      kind: 'BashOutput',
      id: '9e2d7c4b1a0f4e3d8c6b5a4f3e2d1c0b',
      timestamp: '2026-08-22T10:00:01.000001Z',
      command_id: COMMAND_ID,
      order: 0,
      exit_code: null,
      stdout: 'partial',
      stderr: null,
    },
    {
      kind: 'BashCommand',
      id: COMMAND_ID,
      timestamp: '2026-08-22T10:00:00.123456Z',
      command: 'make',
      cwd: '/workspace',
      timeout: 60,
    },
  ],
  next_page_id: `20260822100002000000_BashOutput_${COMMAND_ID}_aa2d7c4b1a0f4e3d8c6b5a4f3e2d1c0b`,
};

describe('BashEventPage', () => {
  it('parses items of mixed kinds and the next page id', () => {
    const page = bashEventPageFromWire(pageWire);
    expect(page.items.map((item) => item.kind)).toEqual(['BashOutput', 'BashCommand']);
    expect(page.items[0]).toMatchObject({ commandId: COMMAND_ID, stdout: 'partial' });
    expect(page.nextPageId).toBe(pageWire.next_page_id);
  });

  it('keeps every wire field', () => {
    expect(bashEventPageWireSchema.parse(pageWire)).toStrictEqual(pageWire);
    expect(bashEventPageFromWire(pageWire)).toStrictEqual({
      items: [bashOutputFromWire(pageWire.items[0]), bashCommandFromWire(pageWire.items[1])],
      nextPageId: pageWire.next_page_id,
    });
  });

  it('treats a missing next_page_id as the last page', () => {
    expect(bashEventPageFromWire({ items: [] })).toEqual({ items: [], nextPageId: null });
  });

  it('names the bad item field', () => {
    const bad = { ...pageWire, items: [{ ...pageWire.items[0], kind: 'Nope' }] };
    expectZodIssueAt(() => bashEventPageFromWire(bad), ['items', 0, 'kind']);
    expectZodIssueAt(() => bashEventPageFromWire({ next_page_id: null }), ['items']);
  });
});
