/** The logger {@link closeOnSignals} reports on (pino's). */
export interface ShutdownLogger {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** Options of {@link closeOnSignals}. */
export interface CloseOnSignalsOptions {
  /** Closes what the process serves. */
  close: () => Promise<void>;
  log: ShutdownLogger;
  /** Logged when a signal arrives. Default `shutting down`. */
  message?: string | undefined;
}

/**
 * On SIGTERM or SIGINT, logs `message`, awaits `close()` and exits 0 (1 when closing failed); a
 * second signal while closing exits 1 at once.
 */
export function closeOnSignals({
  close,
  log,
  message = 'shutting down',
}: CloseOnSignalsOptions): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    // A second signal while closing gives up waiting.
    if (stopping) process.exit(1);
    stopping = true;
    log.info({ signal }, message);
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
