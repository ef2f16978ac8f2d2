import { BashEventLog } from './bash-event-log.js';
import type { BashEventStore } from './bash-event-store.js';

/**
 * Loads the events logged in `stateDir` into `store`, reporting unreadable lines to `onError`,
 * and ends the commands that were running when the previous server stopped without `close()`
 * (a stderr note, then a final event with exit code -1).
 */
export async function restoreBashHistory(
  stateDir: string,
  store: BashEventStore,
  onError: (error: unknown) => void,
): Promise<void> {
  const { events, invalidLines } = await BashEventLog.read(stateDir);
  const skipped = store.restore(events) + invalidLines;
  if (skipped > 0) onError(new Error(`skipped ${skipped} unreadable logged events`));
  for (const commandId of store.unfinishedCommands()) {
    store.addOutput(commandId, {
      stdout: null,
      stderr: 'agent-server stopped before the command finished',
    });
    store.addOutput(
      commandId,
      { stdout: null, stderr: null },
      { exitCode: -1, timeoutOccurred: false, durationMs: 0 },
    );
  }
}
