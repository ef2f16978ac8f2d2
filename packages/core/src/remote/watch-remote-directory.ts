import { SOCKET_CLOSE_CODES } from '@agent-workspace/protocol/constants';
import type { RawData, WebSocket } from 'ws';
import { abortedError } from '../errors/aborted-error.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import type { CheckedFileWatchOptions, FileWatcher } from '../workspace/file-watch.js';
import { FileWatchQueue } from '../workspace/file-watch-queue.js';
import { connectExecSocket } from './connect-exec-socket.js';
import { loadWireSchemas, type WireSchemas } from './load-wire-schemas.js';

/** Options of {@link watchRemoteDirectory}. */
export interface WatchRemoteDirectoryOptions extends CheckedFileWatchOptions {
  /** `ws(s)://` URL of the server's file-watch socket, without a query. */
  url: string;
  /** Absolute server path of the watched directory. */
  path: string;
  /** The server's base URL, named in errors. */
  host: string;
  apiKey: string | undefined;
  connectTimeoutMs: number;
  /** Aborted when the workspace closes: ends the iteration. */
  closing: AbortSignal;
}

/**
 * Watches a directory of an agent-server over its file-watch socket (`FILE_WATCH_CAPABILITY`):
 * resolves once the server's `ready` frame says watching has begun; the server's `error` frame
 * rejects (before `ready`) or ends the iteration with that code. Frames land in a bounded
 * {@link FileWatchQueue}; a slow consumer gets `overflow` instead of unbounded memory.
 */
export async function watchRemoteDirectory(
  options: WatchRemoteDirectoryOptions,
): Promise<FileWatcher> {
  const { signal, closing } = options;
  const frames = (await loadWireSchemas()).fileWatchServerFrameWireSchema;
  if (signal?.aborted) throw abortedError(signal);
  if (closing.aborted) throw closing.reason;
  const query = new URLSearchParams({
    path: options.path,
    recursive: String(options.recursive),
    max_queued_events: String(options.maxQueuedEvents),
    max_events_per_second: String(options.maxEventsPerSecond),
  });
  let socket: WebSocket | undefined;
  let stopping = false;
  let ready: { resolve(): void; reject(error: unknown): void } | undefined;
  const started = new Promise<void>((resolve, reject) => {
    ready = { resolve, reject };
  });
  // Awaited once connected; it may be settled (rejected) before that.
  started.catch(() => {});
  // The server paces the frames (`max_events_per_second`); here they only queue.
  const queue = new FileWatchQueue({
    maxQueuedEvents: options.maxQueuedEvents,
    stop: () => {
      stopping = true;
      closing.removeEventListener('abort', stop);
      signal?.removeEventListener('abort', stop);
      socket?.close();
      // Stopped before the server said `ready`: the workspace closed or the signal aborted.
      ready?.reject(signal?.aborted ? abortedError(signal) : closing.reason);
      ready = undefined;
    },
  });
  const stop = (): void => void queue.close();
  closing.addEventListener('abort', stop, { once: true });
  signal?.addEventListener('abort', stop, { once: true });
  /** Before `ready`, rejects the start; after it, ends the iteration. */
  const fail = (error: WorkspaceError): void => {
    if (ready !== undefined) ready.reject(error);
    else queue.end(error);
    ready = undefined;
  };
  try {
    socket = await connectExecSocket(
      {
        url: `${options.url}?${query}`,
        host: options.host,
        apiKey: options.apiKey,
        connectTimeoutMs: options.connectTimeoutMs,
      },
      {
        open: () => undefined,
        message: (_socket: WebSocket, data: RawData) => {
          const frame = parseFrame(frames, data);
          if (frame === undefined) {
            fail(protocolError(options.host, 'a malformed file-watch frame'));
          } else if (frame.type === 'ready') {
            ready?.resolve();
            ready = undefined;
          } else if (frame.type === 'error') {
            fail(
              new WorkspaceError({
                code: frame.code,
                message: frame.message,
                details: frame.field === undefined ? {} : { field: frame.field },
              }),
            );
          } else if (ready === undefined) {
            queue.push(
              frame.is_directory === undefined
                ? { type: frame.type, path: frame.path }
                : { type: frame.type, path: frame.path, isDirectory: frame.is_directory },
            );
          }
        },
        close: (_socket: WebSocket, code: number, reason: string) => {
          if (stopping) return;
          fail(closeError(options.host, code, reason));
          queue.end();
        },
      },
    );
    if (stopping) socket.close();
    await started;
  } catch (error) {
    await queue.close();
    throw error;
  }
  return queue;
}

function parseFrame(frames: WireSchemas['fileWatchServerFrameWireSchema'], data: RawData) {
  try {
    const parsed = frames.safeParse(JSON.parse(data.toString()));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function protocolError(host: string, what: string): WorkspaceError {
  return new WorkspaceError({
    code: 'PROTOCOL_ERROR',
    message: `the agent-server at ${host} sent ${what}`,
  });
}

/** Why a file-watch socket closed that the client did not close. */
function closeError(host: string, code: number, reason: string): WorkspaceError {
  const detail = reason ? `: ${reason}` : '';
  if (code === SOCKET_CLOSE_CODES.authenticationFailed) {
    return new WorkspaceError({
      code: 'AUTHENTICATION_ERROR',
      message: `the agent-server at ${host} refused the session key${detail}`,
    });
  }
  if (code === SOCKET_CLOSE_CODES.tryAgainLater) {
    return new WorkspaceError({
      code: 'RESOURCE_EXHAUSTED',
      message: `the agent-server at ${host} watches too many directories${detail}`,
    });
  }
  return new WorkspaceError({
    code: 'CONNECTION_ERROR',
    message: `the file-watch socket to ${host} closed (${code})${detail}`,
  });
}
