/**
 * A network egress policy of a {@link BubblewrapSandbox}: the sandbox gets its own network
 * namespace whose only way out is an HTTP/HTTPS proxy in this process that lets through the
 * listed hosts alone (see `EgressAllowList` for the entry syntax). At most 256 entries.
 */
export interface EgressPolicy {
  /** `host` or `host:port` entries: `example.com`, `*.example.com`, `10.0.0.5:8080`, `[::1]:3000`. */
  allowHosts: readonly string[];
}

/**
 * Why the egress proxy refused a request:
 * - `not_allowed`: the host and port match no entry;
 * - `loopback_address`: a listed name (other than `localhost`) resolved to a loopback,
 *   unspecified or link-local address;
 * - `non_canonical_address`: an IPv4 address in another form than a.b.c.d (`127.1`,
 *   `0x7f000001`), or a forward request whose URL-parsed host differs from what it wrote.
 */
export type EgressRefusalReason = 'not_allowed' | 'loopback_address' | 'non_canonical_address';

/** One request the egress proxy refused (with 403). */
export interface EgressRefusal {
  /** The host the request named, lowercased (at most 256 characters; IPv6 in brackets). */
  host: string;
  port: number;
  /**
   * Who asked: the user name of the request's `Proxy-Authorization` (basic), as set by
   * `proxyEnvironment(source)`; `undefined` without one or when it is not a valid source. The
   * sandboxed client chooses it: it attributes, it does not authenticate. The password is
   * never read.
   */
  source: string | undefined;
  reason: EgressRefusalReason;
}

/** Characters and length of a `source` (see `proxyEnvironment`). */
export const EGRESS_SOURCE_PATTERN = /^[A-Za-z0-9._~-]{1,64}$/;

/** Most connections the egress proxy (and the bridge) hold at once; more are closed at once. */
export const EGRESS_MAX_CONNECTIONS = 256;
/** A proxy connection or tunnel with no byte either way for this long is closed (10 min). */
export const EGRESS_IDLE_TIMEOUT_MS = 10 * 60_000;
/** Longest wait for a request's head (Node's default, set explicitly); heads are at most 16 KiB. */
export const EGRESS_HEADERS_TIMEOUT_MS = 60_000;
