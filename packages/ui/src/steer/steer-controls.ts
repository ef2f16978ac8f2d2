/** Which of the steer bar's run controls a conversation's `execution_status` enables. */
export interface SteerControls {
  /** "Pause": only a running conversation has a run to pause. */
  readonly pause: boolean;
  /**
   * "Run": the server starts a run for `idle`, `paused`, `error` and `stuck`; it refuses one
   * while running (409), does nothing for `finished` (a new message is needed) nor for
   * `waiting_for_confirmation` (an answer is needed).
   */
  readonly run: boolean;
  /** Why "Run" is disabled, shown beside the buttons; `null` when there is nothing to say. */
  readonly hint: string | null;
}

const RUNNABLE = new Set(['idle', 'paused', 'error', 'stuck']);

const HINTS: Record<string, string> = {
  running: 'Running…',
  waiting_for_confirmation: 'Waiting for your answer to the pending actions.',
  finished: 'Finished: send a message to continue.',
  deleting: 'Being deleted.',
};

/** The controls a conversation with `status` enables. */
export function steerControls(status: string): SteerControls {
  return {
    pause: status === 'running',
    run: RUNNABLE.has(status),
    hint: HINTS[status] ?? null,
  };
}
