/** Options of {@link BashEventService}. */
export interface BashEventServiceOptions {
  /** Default cwd of commands. */
  workingDir: string;
  /** Where history is persisted; unset keeps it in memory. */
  stateDir?: string | undefined;
  retentionSeconds: number;
  maxBytes: number;
}

/** Runs bash commands and keeps their events. TODO(helper): implement. */
export class BashEventService {
  constructor(readonly options: BashEventServiceOptions) {}

  /** Loads persisted history (if any) and starts the retention loop. */
  async start(): Promise<void> {}

  /** Ends running commands, flushes state and stops timers. Idempotent. */
  async close(): Promise<void> {}
}
