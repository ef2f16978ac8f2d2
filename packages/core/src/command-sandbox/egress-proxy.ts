// Loaded only when a sandbox has an egress policy (dynamic import), so importing core stays cheap.
import type { LookupAddress, LookupOptions, lookup } from 'node:dns';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type PrepareRequestFunctionOpts, RequestError, Server } from 'proxy-chain';
import { checkEgress } from './check-egress.js';
import { splitHostPort } from './classify-host.js';
import type { EgressAllowList } from './egress-allow-list.js';
import {
  EGRESS_HEADERS_TIMEOUT_MS,
  EGRESS_IDLE_TIMEOUT_MS,
  EGRESS_MAX_CONNECTIONS,
  EGRESS_SOURCE_PATTERN,
  type EgressRefusal,
  type EgressRefusalReason,
} from './egress-policy.js';
import {
  EGRESS_SOCKET_DIR_PREFIX,
  EGRESS_SOCKET_NAME,
  reapEgressSocketDirs,
} from './reap-egress-socket-dirs.js';

/** Longest path of a unix socket on Linux (`sun_path` less its NUL). */
const MAX_SOCKET_PATH_BYTES = 107;
/** Longest host kept in a refusal report. */
const MAX_REPORTED_HOST_LENGTH = 256;

const REFUSAL_DETAILS: Readonly<Record<EgressRefusalReason, string>> = {
  not_allowed: '',
  loopback_address: ' (it resolves to a loopback or link-local address)',
  non_canonical_address: ' (an IP address in a non-canonical form)',
};

/** Input of {@link EgressProxy.start}. */
export interface StartEgressProxyOptions {
  allowList: EgressAllowList;
  /** Called for every refused request; what it throws is ignored. */
  onRefused?: ((refusal: EgressRefusal) => void) | undefined;
}

/**
 * proxy-chain drops every connection without a remote address (its guard against a Node
 * quirk), and a unix socket has none: register the connection without that check.
 */
class UnixSocketProxyServer extends Server {
  override onConnection(socket: Socket): void {
    this.registerConnection(socket);
    socket.on('error', () => {});
  }
}

/**
 * The HTTP/HTTPS proxy of a sandbox's egress policy (proxy-chain), listening on a unix socket
 * in a private (0700) directory. Forward requests (`GET http://host/...`) and CONNECT tunnels
 * go only to listed hosts ({@link checkEgress}), to the address that was checked; everything else
 * gets 403 and is reported. Limits: {@link EGRESS_MAX_CONNECTIONS},
 * {@link EGRESS_IDLE_TIMEOUT_MS}, {@link EGRESS_HEADERS_TIMEOUT_MS}, request heads of 16 KiB.
 */
export class EgressProxy implements AsyncDisposable {
  /** The private directory holding {@link EgressProxy.socketPath}; removed by `close()`. */
  readonly socketDir: string;
  /** The unix socket the proxy listens on. */
  readonly socketPath: string;
  readonly #server: UnixSocketProxyServer;
  readonly #agent: Agent;
  #closing: Promise<void> | undefined;

  private constructor(socketDir: string, server: UnixSocketProxyServer, agent: Agent) {
    this.socketDir = socketDir;
    this.socketPath = path.join(socketDir, EGRESS_SOCKET_NAME);
    this.#server = server;
    this.#agent = agent;
  }

  /**
   * Starts the proxy on a unix socket in a new private directory of the temporary directory
   * (`/tmp` when that path is too long for a socket), after reaping the directories of proxies
   * whose process was killed before `close()`.
   */
  static async start(options: StartEgressProxyOptions): Promise<EgressProxy> {
    const base = Buffer.byteLength(tmpdir()) + 30 > MAX_SOCKET_PATH_BYTES ? '/tmp' : tmpdir();
    await reapEgressSocketDirs(base);
    const socketDir = await mkdtemp(path.join(base, EGRESS_SOCKET_DIR_PREFIX));
    // Forwarded requests only; CONNECT tunnels have their own sockets.
    const agent = new Agent({
      keepAlive: true,
      maxTotalSockets: EGRESS_MAX_CONNECTIONS,
      timeout: EGRESS_IDLE_TIMEOUT_MS,
    });
    const server = new UnixSocketProxyServer({
      prepareRequestFunction: (request) => prepare(request, options, agent),
    });
    const proxy = new EgressProxy(socketDir, server, agent);
    const http = server.server;
    http.maxConnections = EGRESS_MAX_CONNECTIONS;
    http.timeout = EGRESS_IDLE_TIMEOUT_MS;
    http.headersTimeout = EGRESS_HEADERS_TIMEOUT_MS;
    // Bodies may take long (uploads); the idle timeout ends a stalled one.
    http.requestTimeout = 0;
    try {
      http.listen(proxy.socketPath);
      await once(http, 'listening');
    } catch (error) {
      await proxy.close();
      throw error;
    }
    return proxy;
  }

  /** Closes every connection, stops listening and removes the socket directory. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#server.server?.listening) await this.#server.close(true);
      this.#agent.destroy();
      await rm(this.socketDir, { recursive: true, force: true });
    })();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** proxy-chain's hook: lets a request through to its checked addresses, or refuses it. */
async function prepare(
  request: PrepareRequestFunctionOpts,
  options: StartEgressProxyOptions,
  agent: Agent,
): Promise<{ dnsLookup: typeof lookup; httpAgent: Agent }> {
  const { port } = request;
  const host = writtenHost(request);
  const decision = await checkEgress({
    allowList: options.allowList,
    host,
    port,
    connectHost: request.hostname,
  });
  if (decision.outcome === 'allowed') {
    if (request.isHttp) replaceHostHeader(request.request);
    return { dnsLookup: pinnedLookup(decision.addresses), httpAgent: agent };
  }
  if (decision.outcome === 'unresolved') {
    throw proxyAnswer(`cannot resolve ${host} (${decision.code})\n`, 502);
  }
  const refusal: EgressRefusal = {
    host: (host || request.hostname).toLowerCase().slice(0, MAX_REPORTED_HOST_LENGTH),
    port,
    source: EGRESS_SOURCE_PATTERN.test(request.username) ? request.username : undefined,
    reason: decision.reason,
  };
  try {
    options.onRefused?.(refusal);
  } catch {
    // A failing reporter must not turn a refusal into a proxy error.
  }
  throw proxyAnswer(
    `${refusal.host}:${port} is not on the sandbox's network allow-list${REFUSAL_DETAILS[decision.reason]}\n`,
    403,
  );
}

/**
 * The error proxy-chain answers with `status` and `message`. It recognises one by its `name`,
 * which a bundler may change by renaming the class (esbuild makes it `_RequestError` in the
 * agent-server's single-file bundle, and the answer would become a 500): the name is set here.
 */
function proxyAnswer(message: string, status: number): RequestError {
  const error = new RequestError(message, status);
  error.name = 'RequestError';
  return error;
}

/**
 * The host as the request wrote it, before any URL parser normalised it: the CONNECT target's
 * host, or the authority of a forward request's absolute URL (without user info); `''` (which
 * no entry matches) when it cannot be read that strictly.
 */
function writtenHost(request: PrepareRequestFunctionOpts): string {
  const target = request.request.url ?? '';
  if (request.isHttp) {
    const match = /^http:\/\/([^/?#\\]*)/i.exec(target);
    if (!match) return '';
    const authority = match[1] ?? '';
    return splitHostPort(authority.slice(authority.lastIndexOf('@') + 1))?.host ?? '';
  }
  return splitHostPort(target)?.host ?? '';
}

/**
 * Sets the `Host` of a forward request to its URL's authority, as a proxy must (RFC 9112
 * 3.2.2), so that the server behind a listed name is never asked for another site (domain
 * fronting over plain HTTP). proxy-chain sends the request's `rawHeaders` after this hook.
 */
function replaceHostHeader(message: IncomingMessage): void {
  const raw = message.rawHeaders;
  const others: string[] = [];
  for (let index = 0; index + 1 < raw.length; index += 2) {
    if (raw[index]?.toLowerCase() !== 'host')
      others.push(raw[index] as string, raw[index + 1] as string);
  }
  raw.splice(0, raw.length, 'Host', new URL(message.url ?? '').host, ...others);
}

/** A `dns.lookup` that answers with the checked addresses only: the name is never resolved again. */
function pinnedLookup(addresses: readonly LookupAddress[]): typeof lookup {
  const pinned = (
    hostname: string,
    options: LookupOptions | ((...args: unknown[]) => void),
    callback?: (...args: unknown[]) => void,
  ): void => {
    const done = (typeof options === 'function' ? options : callback) as (
      ...args: unknown[]
    ) => void;
    const family = typeof options === 'object' ? options.family : undefined;
    const wanted = addresses.filter(
      (entry) => !family || family === entry.family || family === `IPv${entry.family}`,
    );
    process.nextTick(() => {
      const first = wanted[0];
      if (!first) {
        const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
        error.code = 'ENOTFOUND';
        done(error);
      } else if (typeof options === 'object' && options.all) done(null, wanted);
      else done(null, first.address, first.family);
    });
  };
  return pinned as unknown as typeof lookup;
}
