import type { EgressPolicy, EgressRefusal } from './egress-policy.js';

/** Options of `BubblewrapSandbox`. */
export interface BubblewrapSandboxOptions {
  /** Absolute, existing directory: read-write inside, at the same path. */
  workingDir: string;
  /**
   * `true` (default): share the host's network. `false`: an own network namespace with only a
   * private loopback. `{ allowHosts }`: an own network namespace whose only way out is an
   * HTTP/HTTPS proxy in this process that lets through the listed hosts alone (see
   * {@link EgressPolicy}; commands find it through `BubblewrapSandbox.proxyEnvironment`).
   */
  network?: boolean | EgressPolicy | undefined;
  /**
   * Called for each request the egress proxy refused (with an egress policy only), for a log
   * line; what it throws is ignored.
   */
  onEgressRefused?: ((refusal: EgressRefusal) => void) | undefined;
  /** More absolute host paths to show read-only, at the same path. */
  readOnlyPaths?: readonly string[] | undefined;
  /** More absolute host paths to show read-write, at the same path. */
  writablePaths?: readonly string[] | undefined;
}

/** Input of `BubblewrapSandbox.start`. */
export interface StartBubblewrapSandboxOptions extends BubblewrapSandboxOptions {
  /** Aborting stops the start and rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
}
