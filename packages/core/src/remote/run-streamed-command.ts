import type { CommandResult } from '@agent-workspace/protocol';
import { abortedError } from '../errors/aborted-error.js';
import { MAX_TIMER_MS } from '../internal/max-timer-ms.js';
import type { CommandRequest } from '../workspace/base-workspace.js';
import { CLIENT_TIMEOUT_GRACE_MS } from './client-timeout-grace.js';
import { CommandOutput } from './command-output.js';
import type { ExecConnection } from './exec-connection.js';

/** Options of {@link runStreamedCommand}. */
export interface RunStreamedCommandOptions {
  /** The shared exec websocket. */
  execConnection: ExecConnection;
  request: CommandRequest;
  /** Aborted when the workspace closes, with a `WORKSPACE_CLOSED` reason. */
  closing: AbortSignal;
  /** Cap on captured bytes per stream; the tail is kept. */
  maxOutputBytes: number;
}

/** Streaming mode: one command over the shared exec websocket. */
export function runStreamedCommand({
  execConnection,
  request,
  closing,
  maxOutputBytes,
}: RunStreamedCommandOptions): Promise<CommandResult> {
  const { command, signal } = request;
  const output = new CommandOutput({
    maxBytes: maxOutputBytes,
    onStdout: request.onStdout,
    onStderr: request.onStderr,
  });
  const startedAt = performance.now();
  return new Promise<CommandResult>((resolve, reject) => {
    let done = false;
    let guard: NodeJS.Timeout | undefined;
    const finish = (settle: () => void): void => {
      if (done) return;
      done = true;
      clearTimeout(guard);
      signal?.removeEventListener('abort', onAbort);
      closing.removeEventListener('abort', onClose);
      handle.detach();
      settle();
    };
    const handle = execConnection.start(
      {
        command,
        cwd: request.cwd,
        timeoutSeconds: request.timeoutMs / 1000,
        env: request.env,
      },
      {
        output: (stream, data) => {
          try {
            output.write(stream, data);
          } catch (error) {
            handle.kill('SIGKILL');
            finish(() => reject(error));
          }
        },
        exit: (outcome) => finish(() => resolve(output.result({ command, ...outcome }))),
        fail: (error) => finish(() => reject(error)),
      },
    );
    const onAbort = (): void => {
      handle.kill('SIGKILL');
      finish(() => reject(abortedError(signal!)));
    };
    const onClose = (): void => {
      handle.kill('SIGKILL');
      finish(() => reject(closing.reason));
    };
    const armGuard = (delayMs: number): void => {
      guard = setTimeout(
        () => {
          // While reconnecting, the reconnect budget decides (CONNECTION_ERROR or resume).
          if (handle.reconnecting) return armGuard(CLIENT_TIMEOUT_GRACE_MS);
          handle.kill('SIGKILL');
          finish(() =>
            resolve(
              output.result({
                command,
                exitCode: -1,
                timeoutOccurred: true,
                terminationReason: 'timeout',
                durationMs: performance.now() - startedAt,
              }),
            ),
          );
        },
        Math.min(delayMs, MAX_TIMER_MS),
      );
    };
    armGuard(request.timeoutMs + CLIENT_TIMEOUT_GRACE_MS);
    signal?.addEventListener('abort', onAbort, { once: true });
    closing.addEventListener('abort', onClose, { once: true });
  });
}
