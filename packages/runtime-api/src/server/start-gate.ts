/**
 * Serialises the check-count-reserve step of `/start` within one server process and remembers
 * the starts in flight, so that concurrent starts never exceed the session limit and a second
 * start of the same session id waits for the first instead of racing it.
 */
export class StartGate {
  #tail: Promise<unknown> = Promise.resolve();
  readonly #inFlight = new Map<string, Promise<unknown>>();

  /** Runs `critical` alone: calls run one at a time, in call order. */
  exclusive<T>(critical: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(critical, critical);
    this.#tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** Session ids whose start is in flight. */
  get starting(): ReadonlySet<string> {
    return new Set(this.#inFlight.keys());
  }

  /** The start in flight for `sessionId`, settled either way, or `undefined`. */
  inFlight(sessionId: string): Promise<void> | undefined {
    const start = this.#inFlight.get(sessionId);
    return start?.then(
      () => undefined,
      () => undefined,
    );
  }

  /** Records `start` as in flight for `sessionId` until it settles; returns it. */
  track<T>(sessionId: string, start: Promise<T>): Promise<T> {
    this.#inFlight.set(sessionId, start);
    const forget = () => {
      if (this.#inFlight.get(sessionId) === start) this.#inFlight.delete(sessionId);
    };
    start.then(forget, forget);
    return start;
  }
}
