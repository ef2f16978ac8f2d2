import { abortedError, WorkspaceError } from '@agent-workspace/core';
import type Docker from 'dockerode';
import type { ImageProgressListener } from './image-progress.js';

/** How many of the last output lines a failure message carries. */
export const LOG_TAIL_LINES = 30;

/** Options of {@link followImageStream}. */
export interface FollowImageStreamOptions {
  docker: Docker;
  /** The JSON-lines response of a build, pull or import call. */
  stream: NodeJS.ReadableStream;
  /** What runs, for the error message (`agent-server image build`). */
  operation: string;
  /** Stops the work (and cleans up); the call then rejects with `ABORTED`. */
  signal?: AbortSignal;
  /** Receives progress events. */
  onProgress?: ImageProgressListener;
  /** Extra facts for the error's `details`. */
  details?: Record<string, unknown>;
}

/** One JSON object of the engine's progress stream. */
interface StreamMessage {
  stream?: string;
  status?: string;
  id?: string;
  progress?: string;
  error?: string;
  errorDetail?: { message?: string };
}

/** The error of a failed build, pull or import, with the last output lines in its message. */
export function imageStreamError(options: {
  operation: string;
  reason: string;
  log: readonly string[];
  cause?: unknown;
  details?: Record<string, unknown>;
}): WorkspaceError {
  const tail = options.log.slice(-LOG_TAIL_LINES);
  const output = tail.length > 0 ? `\n--- last output ---\n${tail.join('\n')}` : '';
  return new WorkspaceError({
    code: 'PROVISIONING_ERROR',
    message: `${options.operation} failed: ${options.reason.trim()}${output}`,
    cause: options.cause,
    details: { ...options.details, log: tail },
  });
}

/**
 * Follows an engine progress stream (build, pull or import) to its end with
 * `docker.modem.followProgress`, reporting Dockerfile steps and output lines. Rejects with a
 * `PROVISIONING_ERROR` {@link WorkspaceError} carrying the last output lines when the stream
 * reports an error, or with `ABORTED` when `signal` fires. Resolves with the last output lines.
 */
export function followImageStream(options: FollowImageStreamOptions): Promise<string[]> {
  const { stream, signal, onProgress } = options;
  const log: string[] = [];
  let failure: string | undefined;
  const onMessage = (message: StreamMessage): void => {
    if (message.error !== undefined || message.errorDetail !== undefined) {
      failure = message.errorDetail?.message ?? message.error ?? 'unknown error';
      return;
    }
    const text =
      message.stream ??
      [message.id, message.status, message.progress].filter(Boolean).join(' ').trim();
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      log.push(line);
      if (log.length > LOG_TAIL_LINES * 4) log.splice(0, log.length - LOG_TAIL_LINES);
      onProgress?.({ type: /^Step \d+\/\d+ : /.test(line) ? 'step' : 'log', message: line });
    }
  };
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    options.docker.modem.followProgress(
      stream,
      (error: Error | null) => {
        signal?.removeEventListener('abort', onAbort);
        if (signal?.aborted) return reject(abortedError(signal));
        const reason = failure ?? error?.message;
        if (reason === undefined) return resolve(log);
        reject(
          imageStreamError({
            operation: options.operation,
            reason,
            log,
            cause: error ?? undefined,
            details: options.details,
          }),
        );
      },
      onMessage,
    );
  });
}
