import type { ConversationEventWire } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import { RemoteEventFeed } from './remote-event-feed.js';
import { RemoteRunStatus } from './remote-run-status.js';

/** A user message event with id `id`. */
function message(id: string): ConversationEventWire {
  return {
    kind: 'MessageEvent',
    id,
    timestamp: '2026-01-01T00:00:00.000000Z',
    source: 'user',
    llm_message: { role: 'user', content: [{ type: 'text', text: id }] },
  } as ConversationEventWire;
}

/**
 * A server's event list as `GET …/events/search` pages it: all of it, or from the event
 * `fromId` (none when it is not kept); every call is logged.
 */
function server(events: ConversationEventWire[]) {
  const calls: (string | undefined)[] = [];
  return {
    calls,
    events,
    fetchEvents: async (fromId?: string) => {
      calls.push(fromId);
      if (fromId === undefined) return [...events];
      const at = events.findIndex((event) => event.id === fromId);
      return at < 0 ? [] : events.slice(at);
    },
  };
}

/** An `execution_status` state update to `status`. */
function statusUpdate(id: string, status: string): ConversationEventWire {
  return {
    kind: 'ConversationStateUpdateEvent',
    id,
    timestamp: '2026-01-01T00:00:00.000000Z',
    source: 'environment',
    key: 'execution_status',
    value: status,
  } as ConversationEventWire;
}

const ids = (feed: RemoteEventFeed) => feed.events.toArray().map((event) => event.id);

describe('RemoteEventFeed', () => {
  it('catches up from its newest event: one page of what the socket has not delivered', async () => {
    const remote = server([message('a'), message('b')]);
    const feed = new RemoteEventFeed({
      fetchEvents: remote.fetchEvents,
      status: new RemoteRunStatus('idle'),
    });
    await feed.sync();
    // The socket brings c; d is recorded but still on its way.
    remote.events.push(message('c'), message('d'));
    feed.onFrame(message('c'));
    await feed.catchUp();
    expect(ids(feed)).toEqual(['a', 'b', 'c', 'd']);
    expect(remote.calls).toEqual([undefined, 'c']);
    // d arriving late on the socket is not added twice.
    feed.onFrame(message('d'));
    expect(ids(feed)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('tells the status of the newest status event as of the page it read', async () => {
    const remote = server([message('a'), statusUpdate('s1', 'running')]);
    const feed = new RemoteEventFeed({
      fetchEvents: remote.fetchEvents,
      status: new RemoteRunStatus('idle'),
    });
    await feed.sync();
    // No status event in the page: the list's newest one counts.
    remote.events.push(message('b'));
    expect(await feed.catchUp()).toBe('running');
    remote.events.push(statusUpdate('s2', 'finished'), message('c'));
    expect(await feed.catchUp()).toBe('finished');
    expect(ids(feed)).toEqual(['a', 's1', 'b', 's2', 'c']);
  });

  it('pages everything when the server no longer keeps its newest event', async () => {
    const remote = server([message('a'), message('b')]);
    const feed = new RemoteEventFeed({
      fetchEvents: remote.fetchEvents,
      status: new RemoteRunStatus('idle'),
    });
    await feed.sync();
    remote.events.splice(0, 2, message('x'), message('y'));
    await feed.catchUp();
    expect(remote.calls).toEqual([undefined, 'b', undefined]);
    expect(ids(feed)).toEqual(['a', 'b', 'x', 'y']);
  });

  it('pages everything after a fill failed, since live events may then follow a gap', async () => {
    const remote = server([message('a')]);
    let failNext = false;
    const feed = new RemoteEventFeed({
      fetchEvents: async (fromId) => {
        if (failNext) {
          failNext = false;
          throw new Error('connection reset');
        }
        return remote.fetchEvents(fromId);
      },
      status: new RemoteRunStatus('idle'),
    });
    await feed.sync();
    remote.events.push(message('b'), message('c'));
    failNext = true;
    const failed = feed.sync();
    // c arrives live while the fill runs; b is missing when the fill fails.
    feed.onFrame(message('c'));
    await expect(failed).rejects.toThrow('connection reset');
    expect(ids(feed)).toEqual(['a', 'c']);
    await feed.catchUp();
    expect(remote.calls.at(-1)).toBeUndefined();
    expect(ids(feed).sort()).toEqual(['a', 'b', 'c']);
  });
});
