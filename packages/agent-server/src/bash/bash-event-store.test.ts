import type { BashEventSearchQuery } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import type { StoredBashEvent } from './bash-event-records.js';
import { BashEventStore } from './bash-event-store.js';
import { persistedBashEventSchema } from './persisted-bash-event.js';
import { MAX_PAGE_BYTES } from './search-bash-events.js';

const EXIT = { exitCode: 0, timeoutOccurred: false, durationMs: 5 };

function query(overrides: Partial<BashEventSearchQuery> = {}): BashEventSearchQuery {
  return { sortOrder: 'TIMESTAMP', limit: 100, ...overrides };
}

/** A command with `outputs` stdout events, finished unless `running`. */
function addCommand(store: BashEventStore, outputs: number, running = false, text = 'x'): string {
  const id = store.addCommand({ command: 'cmd', cwd: null, timeout: 300 }).stored.event.id;
  for (let index = 0; index < outputs; index++) {
    store.addOutput(id, { stdout: `${text}${index}`, stderr: null });
  }
  if (!running) store.addOutput(id, { stdout: null, stderr: null }, EXIT);
  return id;
}

function orders(items: StoredBashEvent[]): (number | undefined)[] {
  return items.map(({ event }) => (event.kind === 'BashOutput' ? event.order : undefined));
}

describe('BashEventStore', () => {
  it('numbers outputs from 0 with one counter and keeps time order', () => {
    const store = new BashEventStore({ maxCommandBytes: 1024 ** 3, maxBytes: 1e9 });
    const id = store.addCommand({ command: 'ls', cwd: '/w', timeout: 1.5 }).stored.event.id;
    store.addOutput(id, { stdout: 'a', stderr: null });
    store.addOutput(id, { stdout: null, stderr: 'b' });
    const final = store.addOutput(id, { stdout: null, stderr: null }, EXIT).stored;
    expect(final.event).toMatchObject({ order: 2, exit_code: 0, command_id: id });
    const { items } = store.search(query());
    expect(orders(items)).toEqual([undefined, 0, 1, 2]);
    const stamps = items.map(({ event }) => event.timestamp);
    expect(new Set(stamps).size).toBe(4);
    expect([...stamps].sort()).toEqual(stamps);
    expect(store.record(id)?.exit).toEqual(EXIT);
    expect(() => store.addOutput(id, { stdout: 'late', stderr: null })).toThrow('not running');
    expect(() => store.addOutput('f'.repeat(32), { stdout: 'x', stderr: null })).toThrow();
  });

  it('filters before paging and pages both ways with cursors that survive deletions', () => {
    const store = new BashEventStore({ maxCommandBytes: 1024 ** 3, maxBytes: 1e9 });
    const id = addCommand(store, 30);
    const filtered = query({ commandIdEq: id, orderGt: 20, limit: 4 });
    const first = store.search(filtered);
    expect(orders(first.items)).toEqual([21, 22, 23, 24]);
    const second = store.search({ ...filtered, pageId: first.nextPageId as string });
    expect(orders(second.items)).toEqual([25, 26, 27, 28]);
    const descending = store.search({ ...filtered, sortOrder: 'TIMESTAMP_DESC' });
    expect(orders(descending.items)).toEqual([30, 29, 28, 27]);
    const back = store.search({
      ...filtered,
      sortOrder: 'TIMESTAMP_DESC',
      pageId: descending.nextPageId as string,
    });
    expect(orders(back.items)).toEqual([26, 25, 24, 23]);
    // The event a cursor names may be gone; paging resumes at the next one in time.
    store.purgeBefore(store.get(store.record(id)?.outputs[25]?.event.id as string)!.micros + 1);
    expect(orders(store.search({ ...filtered, pageId: first.nextPageId as string }).items)).toEqual(
      [26, 27, 28, 29],
    );
    expect(store.search({ ...filtered, limit: 100 }).nextPageId).toBeNull();
  });

  it('filters by kind and by timestamp range (gte inclusive, lt exclusive)', () => {
    const store = new BashEventStore({ maxCommandBytes: 1024 ** 3, maxBytes: 1e9 });
    addCommand(store, 3);
    const id = addCommand(store, 3);
    expect(store.search(query({ kindEq: 'BashCommand' })).items).toHaveLength(2);
    expect(store.search(query({ kindEq: 'BashOutput' })).items).toHaveLength(8);
    expect(store.search(query({ kindEq: 'BashCommand', commandIdEq: id })).items).toEqual([]);
    const outputs = store.record(id)?.outputs ?? [];
    const from = outputs[1]?.event.timestamp as string;
    const to = outputs[3]?.event.timestamp as string;
    const range = store.search(query({ timestampGte: from, timestampLt: to }));
    expect(orders(range.items)).toEqual([1, 2]);
  });

  it('evicts whole finished commands first, then the oldest events of running ones', () => {
    const probe = new BashEventStore({ maxCommandBytes: 1024 ** 3, maxBytes: 1e9 });
    addCommand(probe, 10);
    const perCommand = probe.bytes;
    const store = new BashEventStore({
      maxCommandBytes: 1024 ** 3,
      maxBytes: Math.floor(perCommand * 2.2),
    });
    const running = addCommand(store, 3, true);
    const oldFinished = addCommand(store, 10);
    expect(store.evictedThrough).toBe(0);
    addCommand(store, 10);
    // Over the bound: the oldest finished command went, the older running one stayed.
    expect(store.record(oldFinished)).toBeUndefined();
    expect(store.wasDropped(oldFinished)).toBe(true);
    expect(store.record(running)?.outputs).toHaveLength(3);
    expect(store.bytes).toBeLessThanOrEqual(perCommand * 2.2);
    expect(store.evictedThrough).toBeGreaterThan(0);
    // A runaway running command loses its oldest outputs, contiguously.
    for (let index = 3; index < 80; index++) {
      store.addOutput(running, { stdout: `y${index}`, stderr: null });
    }
    const record = store.record(running);
    expect(record?.firstOrder).toBeGreaterThan(0);
    expect(record?.outputs.map((stored) => (stored.event as { order: number }).order)).toEqual(
      Array.from(
        { length: 80 - (record?.firstOrder ?? 0) },
        (_u, i) => (record?.firstOrder ?? 0) + i,
      ),
    );
    expect(store.bytes).toBeLessThanOrEqual(perCommand * 2.2);
    // Indexes and the time-ordered list agree after eviction.
    for (const stored of store.search(query({ limit: 100 })).items) {
      expect(store.get(stored.event.id)).toBe(stored);
    }
  });

  it('purges by age and clears finished commands only', () => {
    const store = new BashEventStore({ maxCommandBytes: 1024 ** 3, maxBytes: 1e9 });
    const old = addCommand(store, 2);
    const cutoff = (store.record(old)?.outputs.at(-1)?.micros ?? 0) + 1;
    const running = addCommand(store, 2, true);
    const finished = addCommand(store, 1);
    expect(store.purgeBefore(cutoff)).toBe(4);
    expect(store.record(old)).toBeUndefined();
    expect(store.get(store.record(running)?.command?.event.id as string)).toBeDefined();
    expect(store.clearFinished()).toBe(3);
    expect(store.record(finished)).toBeUndefined();
    expect(store.search(query()).items).toHaveLength(3);
    expect(store.record(running)?.exit).toBeUndefined();
  });

  it('round-trips through its log lines and skips duplicates and gaps when restoring', () => {
    const store = new BashEventStore({ maxCommandBytes: 1024 ** 3, maxBytes: 1e9 });
    addCommand(store, 2);
    const running = addCommand(store, 1, true);
    const lines = [...store.lines()].map((line) =>
      persistedBashEventSchema.parse(JSON.parse(line)),
    );
    const restored = new BashEventStore({ maxCommandBytes: 1024 ** 3, maxBytes: 1e9 });
    const gap = {
      event: { ...(lines[2]?.event as object), id: 'c'.repeat(32), order: 7 },
    } as (typeof lines)[number];
    // Shuffled input is put back in time order; the duplicate and the gap are skipped.
    expect(restored.restore([...lines].reverse().concat([lines[0]!, gap]))).toBe(2);
    expect(restored.search(query()).items.map((stored) => stored.event)).toEqual(
      store.search(query()).items.map((stored) => stored.event),
    );
    expect(restored.record(lines[0]!.event.id)?.exit).toEqual(EXIT);
    expect(restored.unfinishedCommands()).toEqual([running]);
    // New events come after the restored ones.
    const next = restored.addOutput(running, { stdout: 'more', stderr: null }).stored;
    expect(next.event).toMatchObject({ order: 1 });
    expect(next.micros).toBeGreaterThan(restored.search(query()).items.at(-2)?.micros ?? 0);
  });

  it('replaces the oldest outputs of a command by a marker past maxCommandBytes, orders kept whole', () => {
    const chunk = 'y'.repeat(1000);
    const store = new BashEventStore({ maxCommandBytes: 20_000, maxBytes: 1e9 });
    const other = addCommand(store, 3);
    const id = addCommand(store, 100, true, chunk);
    const record = store.record(id);
    expect(record?.bytes).toBeLessThanOrEqual(20_000);
    const outputs = record?.outputs ?? [];
    const [marker, ...kept] = outputs;
    expect(marker?.marker).toBe(true);
    const dropped = (marker?.event.kind === 'BashOutput' && marker.event.order) || 0;
    expect(marker?.event).toMatchObject({
      order: dropped,
      exit_code: null,
      stderr: null,
      stdout: expect.stringMatching(/^\[\.\.\. \d+ bytes of earlier output dropped/),
    });
    // Every dropped output's text is counted (each is the chunk plus its index).
    const lost = Array.from({ length: dropped + 1 }, (_, i) => chunk.length + String(i).length);
    expect((marker as StoredBashEvent).event).toHaveProperty(
      'stdout',
      expect.stringContaining(`${lost.reduce((a, b) => a + b, 0)} bytes`),
    );
    expect(orders(outputs)).toEqual(Array.from({ length: kept.length + 1 }, (_, i) => dropped + i));
    expect(orders(kept).at(-1)).toBe(99);
    // Searches see the marker in time order; the other command is untouched.
    const page = store.search(query({ commandIdEq: id }));
    expect(page.items[0]).toBe(marker);
    expect(store.record(other)?.outputs).toHaveLength(4);
    expect(store.evictedThrough).toBe(marker?.seq);
    // The marker survives a restore through its log line, with its count.
    const lines = [...store.lines()].map((line) =>
      persistedBashEventSchema.parse(JSON.parse(line)),
    );
    const restored = new BashEventStore({ maxCommandBytes: 20_000, maxBytes: 1e9 });
    expect(restored.restore(lines)).toBe(0);
    expect(restored.record(id)?.droppedOutputBytes).toBe(record?.droppedOutputBytes);
    expect(restored.search(query({ commandIdEq: id })).items.map((stored) => stored.event)).toEqual(
      page.items.map((stored) => stored.event),
    );
  });

  it('ends a search page at 4 MiB of events, never with an empty page', () => {
    const store = new BashEventStore({ maxCommandBytes: 1e9, maxBytes: 1e9 });
    const id = addCommand(store, 100, false, 'z'.repeat(64 * 1024));
    const first = store.search(query({ commandIdEq: id }));
    expect(first.items.length).toBeGreaterThan(10);
    expect(first.items.length).toBeLessThan(100);
    const bytes = first.items.reduce((sum, stored) => sum + stored.bytes, 0);
    expect(bytes).toBeLessThanOrEqual(MAX_PAGE_BYTES);
    const next = store.search(query({ commandIdEq: id, pageId: first.nextPageId as string }));
    expect(orders(next.items)[0]).toBe((orders(first.items).at(-1) ?? 0) + 1);
    const huge = new BashEventStore({ maxCommandBytes: 1e9, maxBytes: 1e9 });
    addCommand(huge, 1, false, 'w'.repeat(MAX_PAGE_BYTES));
    const command = huge.search(query());
    expect(command.items.map((stored) => stored.event.kind)).toEqual(['BashCommand']);
    const alone = huge.search(query({ pageId: command.nextPageId as string }));
    expect(alone.items).toHaveLength(1);
    expect(alone.items[0]?.bytes).toBeGreaterThan(MAX_PAGE_BYTES);
  });
});
