import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConversationEventsSocket, type EventsSocketState } from './conversation-events-socket.js';
import type { StreamedEvent } from './conversation-timeline.js';

/** A socket the test drives: it records how it was opened and can be fed frames. */
class FakeSocket extends EventTarget {
  closedWith: number | undefined;
  constructor(
    readonly path: string,
    readonly query: Record<string, unknown>,
  ) {
    super();
  }
  close(code?: number): void {
    this.closedWith = code ?? 1000;
  }
  open(): void {
    this.dispatchEvent(new Event('open'));
  }
  frame(value: unknown): void {
    this.dispatchEvent(Object.assign(new Event('message'), { data: JSON.stringify(value) }));
  }
  drop(code: number, reason = ''): void {
    this.dispatchEvent(Object.assign(new Event('close'), { code, reason }));
  }
}

function event(id: string, timestamp: string, extra: Record<string, unknown> = {}) {
  return { kind: 'PauseEvent', id, timestamp, source: 'user', ...extra };
}

describe('ConversationEventsSocket', () => {
  let sockets: FakeSocket[];
  let received: StreamedEvent[];
  let states: EventsSocketState[];
  let events: ConversationEventsSocket;

  beforeEach(() => {
    vi.useFakeTimers();
    sockets = [];
    received = [];
    states = [];
    const client = {
      socket: (path: string, query: Record<string, unknown> = {}) => {
        const socket = new FakeSocket(path, query);
        sockets.push(socket);
        return socket as unknown as WebSocket;
      },
    };
    events = new ConversationEventsSocket({
      client,
      conversationId: 'c/1',
      onEvent: (item) => received.push(item),
      onState: (state) => states.push(state),
      initialDelayMs: 100,
      maxDelayMs: 400,
    });
  });

  afterEach(() => {
    events.close();
    vi.useRealTimers();
  });

  it('first asks for every event of the conversation', () => {
    expect(sockets).toHaveLength(1);
    expect(sockets[0]?.path).toBe('/sockets/events/c%2F1');
    expect(sockets[0]?.query).toEqual({ resend_mode: 'all' });
  });

  it('reconnects after a drop from the last recorded event, without duplicates', () => {
    const first = sockets[0] as FakeSocket;
    first.open();
    first.frame(event('a', '2026-01-01T00:00:01.000000Z'));
    first.frame(event('b', '2026-01-01T00:00:02.000000Z'));
    // Neither a delta nor a snapshot can resume a replay.
    first.frame({
      kind: 'StreamingDeltaEvent',
      id: 'd',
      timestamp: '2026-01-01T00:00:09.000000Z',
      content: 'x',
    });
    first.frame({
      kind: 'ConversationStateUpdateEvent',
      id: 'f',
      timestamp: '2026-01-01T00:00:09.000000Z',
      key: 'full_state',
      value: {},
    });
    first.drop(1006);
    expect(states.at(-1)).toEqual({ kind: 'reconnecting', attempt: 1, delayMs: 100 });
    vi.advanceTimersByTime(100);
    const second = sockets[1] as FakeSocket;
    expect(second.query).toEqual({
      resend_mode: 'since',
      after_timestamp: '2026-01-01T00:00:02.000000Z',
    });
    second.frame(event('b', '2026-01-01T00:00:02.000000Z'));
    second.frame(event('c', '2026-01-01T00:00:03.000000Z'));
    expect(received.map((item) => item.id)).toEqual(['a', 'b', 'd', 'f', 'c']);
  });

  it('backs off exponentially up to the limit while the server stays away', () => {
    for (const expected of [100, 200, 400, 400]) {
      (sockets.at(-1) as FakeSocket).drop(1006);
      expect(states.at(-1)).toMatchObject({ kind: 'reconnecting', delayMs: expected });
      vi.advanceTimersByTime(expected - 1);
      const count = sockets.length;
      vi.advanceTimersByTime(1);
      expect(sockets.length).toBe(count + 1);
    }
  });

  it.each([
    [4001, 'refused the session key'],
    [4004, 'no such conversation'],
  ])('gives up on close code %i', (code, message) => {
    (sockets[0] as FakeSocket).drop(code);
    expect(states.at(-1)).toMatchObject({ kind: 'failed', code });
    expect((states.at(-1) as { message: string }).message).toContain(message);
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
  });

  it('closes the socket and stops reconnecting when closed', () => {
    const first = sockets[0] as FakeSocket;
    first.drop(1006);
    events.close();
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
    const another = new ConversationEventsSocket({
      client: { socket: () => first as unknown as WebSocket },
      conversationId: 'c',
      onEvent: () => {},
    });
    another.close();
    expect(first.closedWith).toBe(1000);
  });

  it('ignores frames that are not events', () => {
    const first = sockets[0] as FakeSocket;
    first.dispatchEvent(Object.assign(new Event('message'), { data: 'not json' }));
    first.frame({ hello: 1 });
    first.frame(event('a', '2026-01-01T00:00:01.000000Z'));
    expect(received.map((item) => item.id)).toEqual(['a']);
  });
});
