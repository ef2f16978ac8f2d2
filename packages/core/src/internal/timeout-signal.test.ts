import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeoutSignal } from './timeout-signal.js';

// A peer that accepts connections and never answers: a hung agent-server.
const silent = createServer((socket) => sockets.add(socket));
const sockets = new Set<Socket>();
const dispatcher = new Agent();
let url = '';

beforeAll(async () => {
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/health`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  silent.close();
  await dispatcher.close();
});

describe('timeoutSignal', () => {
  it('aborts with a TimeoutError after its time, and earlier with its parent', async () => {
    const timed = timeoutSignal({ timeoutMs: 20 });
    await once(timed, 'abort');
    expect(timed.reason).toMatchObject({ name: 'TimeoutError' });

    const parent = new AbortController();
    const child = timeoutSignal({ timeoutMs: 60_000, signal: parent.signal });
    parent.abort(new Error('closing'));
    expect(child.aborted).toBe(true);
    expect(child.reason).toEqual(new Error('closing'));
    expect(timeoutSignal({ timeoutMs: 60_000, signal: parent.signal }).reason).toEqual(
      new Error('closing'),
    );
  });

  it('aborts with the first of several parents, and clamps a delay setTimeout cannot hold', async () => {
    const first = new AbortController();
    const second = new AbortController();
    const child = timeoutSignal({
      timeoutMs: 60_000,
      signals: [first.signal, undefined, second.signal],
    });
    second.abort(new Error('second'));
    first.abort(new Error('first'));
    expect(child.reason).toEqual(new Error('second'));
    // Past 2^31 - 1 ms, Node would fire the timer at once.
    const far = timeoutSignal({ timeoutMs: 2 ** 40 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(far.aborted).toBe(false);
  });

  it('still ends a hung request after garbage collection (nodejs/node#57736)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const parent = new AbortController();
    const outcome = request(url, {
      dispatcher,
      signal: timeoutSignal({ timeoutMs: 300, signal: parent.signal }),
    }).then(
      () => 'answered',
      (error: Error) => error.name,
    );
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
    gc();
    // The bound is generous: what matters is that the request ends at all.
    const hung = new Promise((resolve) => setTimeout(() => resolve('hung'), 10_000).unref());
    expect(await Promise.race([outcome, hung])).toBe('TimeoutError');
  });
});
