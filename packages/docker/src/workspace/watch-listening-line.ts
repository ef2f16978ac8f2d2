import type { Readable } from 'node:stream';
import { AGENT_SERVER_LISTENING_EVENT } from '@agent-workspace/protocol';
import type Docker from 'dockerode';

/** Options of {@link watchListeningLine}. */
export interface WatchListeningLineOptions {
  /** The started container. */
  container: Docker.Container;
  /** Ends the watch (the start's deadline, close). */
  signal: AbortSignal;
}

/** A watch of a container's output for the agent-server's listening line. */
export interface ListeningLineWatch {
  /**
   * Resolves when the line appears; rejects when the output ends, breaks or the watch stops
   * first. Nobody has to handle the rejection: a start falls back to polling.
   */
  ready: Promise<void>;
  /** Closes the log stream (idempotent). */
  stop(): void;
}

/** Bytes kept between chunks, so a line split across them is still seen. */
const CARRY_BYTES = AGENT_SERVER_LISTENING_EVENT.length + 64;

/**
 * Follows a container's stdout from its first byte (`docker logs --follow`, so a line written
 * before the stream opened is not missed) until the agent-server writes its listening line
 * (`AGENT_SERVER_LISTENING_EVENT`), then closes the stream. Readiness is then seen the moment
 * the server says so, rather than at the next `/health` poll.
 */
export function watchListeningLine({
  container,
  signal,
}: WatchListeningLineOptions): ListeningLineWatch {
  let stream: Readable | undefined;
  let stopped = false;
  const stop = () => {
    stopped = true;
    stream?.destroy();
  };
  const ready = (async () => {
    const output = (await container.logs({
      follow: true,
      stdout: true,
      stderr: false,
      abortSignal: signal,
    })) as unknown as Readable;
    stream = output;
    if (stopped) output.destroy();
    let carry = '';
    // Frame headers of the multiplexed stream never contain the event name, so the raw bytes
    // are searched as they come.
    for await (const chunk of output as AsyncIterable<Buffer>) {
      const text = carry + chunk.toString('latin1');
      if (text.includes(AGENT_SERVER_LISTENING_EVENT)) return;
      carry = text.slice(-CARRY_BYTES);
    }
    throw new Error('the container output ended before the agent-server listened');
  })().finally(() => stream?.destroy());
  ready.catch(() => {});
  signal.addEventListener('abort', stop, { once: true });
  void ready.finally(() => signal.removeEventListener('abort', stop)).catch(() => {});
  return { ready, stop };
}
