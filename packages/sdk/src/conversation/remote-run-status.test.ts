import { WorkspaceError } from '@agent-workspace/core';
import type { ConversationExecutionStatus } from '@agent-workspace/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REMOTE_RUN_POLL_MAX_MS, RemoteRunStatus, type RunMark } from './remote-run-status.js';

/** A REST status check that answers `answers` in turn (the last one from then on), counted. */
function restStatus(...answers: ConversationExecutionStatus[]) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    fetch: async (): Promise<ConversationExecutionStatus> =>
      answers[Math.min(calls++, answers.length - 1)]!,
  };
}

/** The wait of a run asked for at `since`, with the socket up and REST answering from `rest`. */
function waitConnected(
  status: RemoteRunStatus,
  since: RunMark,
  rest: ReturnType<typeof restStatus>,
): Promise<ConversationExecutionStatus> {
  return status.waitUntilNotRunning({
    fetchStatus: rest.fetch,
    assertOpen: () => {},
    since,
    socketConnected: () => true,
  });
}

/** A run whose `running` and `finished` status events the socket told, its snapshot not yet. */
function runEndedBeforeItsSnapshot() {
  const status = new RemoteRunStatus('idle');
  const since = status.mark();
  status.report('running');
  status.report('finished');
  const rest = restStatus('finished');
  return { status, since, rest, wait: waitConnected(status, since, rest) };
}

/** Whether `promise` has settled once the pending callbacks (not timers) have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  for (let turn = 0; turn < 20; turn++) await Promise.resolve();
  return done;
}

describe('RemoteRunStatus', () => {
  beforeEach(() => {
    // Fake timers that are never advanced: a wait that needed a timer would never end.
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("ends a run on the socket's post-run snapshot after its running report, without REST", async () => {
    const { status, since, rest, wait } = runEndedBeforeItsSnapshot();
    // The status event alone does not end the wait: the snapshot follows every event of the run.
    expect(await settled(wait)).toBe(false);
    expect(status.endedOverSocket(since)).toBeUndefined();
    status.report('finished', { snapshot: true });
    expect(await wait).toBe('finished');
    expect(status.endedOverSocket(since)).toBe('finished');
    expect(rest.calls).toBe(0);
  });

  it('checks REST when the post-run snapshot does not come within the poll interval', async () => {
    const { status, since, rest, wait } = runEndedBeforeItsSnapshot();
    await vi.advanceTimersByTimeAsync(REMOTE_RUN_POLL_MAX_MS - 1);
    expect(rest.calls).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(await wait).toBe('finished');
    expect(rest.calls).toBe(1);
    expect(status.endedOverSocket(since)).toBeUndefined();
  });

  it('does not take a snapshot from before the run, or across a reconnect, for its end', async () => {
    const status = new RemoteRunStatus('idle');
    const since = status.mark();
    // The snapshot a connect sends, arriving late: no `running` came before it.
    status.report('idle', { snapshot: true });
    expect(status.endedOverSocket(since)).toBeUndefined();
    status.report('running');
    status.reconnected();
    // The new connection's first snapshot: the frames between may be lost, so REST decides.
    status.report('finished', { snapshot: true });
    expect(status.endedOverSocket(since)).toBeUndefined();
    const rest = restStatus('finished');
    const wait = waitConnected(status, since, rest);
    expect(await wait).toBe('finished');
    expect(rest.calls).toBe(1);
  });

  it('waits for the socket to report a settled status, then checks it over REST', async () => {
    const status = new RemoteRunStatus('idle');
    const since = status.mark();
    // A stale report (the run has not ended): REST says running, so it waits for the next one.
    status.report('idle');
    const rest = restStatus('running', 'paused');
    const wait = waitConnected(status, since, rest);
    expect(await settled(wait)).toBe(false);
    expect(rest.calls).toBe(1);
    status.report('running');
    expect(await settled(wait)).toBe(false);
    status.report('paused');
    expect(await settled(wait)).toBe(true);
    expect(await wait).toBe('paused');
    expect(rest.calls).toBe(2);
  });

  it('polls REST with a backoff while the socket is down, and at most every second when up', async () => {
    const status = new RemoteRunStatus('running');
    let connected = false;
    const rest = restStatus('running', 'running', 'running', 'running', 'finished');
    const wait = status.waitUntilNotRunning({
      fetchStatus: rest.fetch,
      assertOpen: () => {},
      since: status.mark(),
      socketConnected: () => connected,
    });
    await vi.advanceTimersByTimeAsync(49);
    expect(rest.calls).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(rest.calls).toBe(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(rest.calls).toBe(2);
    // The socket is back: after the wait going on (200 ms), REST is asked once a second.
    connected = true;
    await vi.advanceTimersByTimeAsync(200);
    expect(rest.calls).toBe(3);
    await vi.advanceTimersByTimeAsync(REMOTE_RUN_POLL_MAX_MS - 1);
    expect(rest.calls).toBe(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(rest.calls).toBe(4);
    await vi.advanceTimersByTimeAsync(REMOTE_RUN_POLL_MAX_MS);
    expect(await wait).toBe('finished');
  });

  it('rejects a waiting run when the socket fails for good or the conversation closes', async () => {
    const fatal = new WorkspaceError({ code: 'NOT_FOUND', message: 'gone' });
    const failing = new RemoteRunStatus('running');
    const failed = failing.waitUntilNotRunning({
      fetchStatus: restStatus('running').fetch,
      assertOpen: () => {},
      since: failing.mark(),
      socketConnected: () => true,
    });
    failing.fail(fatal);
    await expect(failed).rejects.toBe(fatal);

    const closing = new RemoteRunStatus('running');
    let open = true;
    const closed = closing.waitUntilNotRunning({
      fetchStatus: restStatus('running').fetch,
      assertOpen: () => {
        if (!open) throw new WorkspaceError({ code: 'WORKSPACE_CLOSED', message: 'closed' });
      },
      since: closing.mark(),
      socketConnected: () => true,
    });
    open = false;
    closing.close();
    await expect(closed).rejects.toSatisfy((error) =>
      WorkspaceError.isInstance(error, 'WORKSPACE_CLOSED'),
    );
  });
});
