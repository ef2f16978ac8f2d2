// Servers for the egress tests to reach (real sockets on this machine) and a host-side client
// of the egress proxy's unix socket.

import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, request } from 'node:http';
import { createServer, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { isInternalAddress } from '../internal-address.js';

/** A server listening on `host`, closed by dispose. */
export interface TestServer extends AsyncDisposable {
  readonly host: string;
  readonly port: number;
}

async function listening(
  server: Server & { closeAllConnections?: () => void },
  host: string,
): Promise<TestServer> {
  server.listen(0, host);
  await once(server, 'listening');
  return {
    host,
    port: (server.address() as { port: number }).port,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections?.();
      server.close();
    },
  };
}

/**
 * An HTTP server on `host` that answers `/host` with `host <Host header>` and every other
 * request with `reached <host> <method> <url>`.
 */
export function startHttpTarget(host: string): Promise<TestServer> {
  const server = createHttpServer((req, res) => {
    res.end(
      req.url === '/host' ? `host ${req.headers.host}` : `reached ${host} ${req.method} ${req.url}`,
    );
  });
  return listening(server, host);
}

/** A TCP server on `host` that sends back `echo:` and all it read once the client half-closes. */
export function startEchoTarget(host: string): Promise<TestServer> {
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => socket.end(`echo:${Buffer.concat(chunks).toString()}`));
    socket.on('error', () => {});
  });
  return listening(server, host);
}

/** A non-loopback IPv4 address of this machine, or `undefined` when it has none. */
export function nonLoopbackAddress(): string | undefined {
  for (const addresses of Object.values(networkInterfaces())) {
    const found = addresses?.find((entry) => entry.family === 'IPv4' && !entry.internal);
    if (found) return found.address;
  }
  return undefined;
}

/**
 * A name other than `localhost` that /etc/hosts maps to loopback only (Debian's
 * `ip6-localhost`, a host name on 127.0.1.1), or `undefined` when it has none.
 */
export function loopbackHostsName(): string | undefined {
  const names = new Map<string, boolean>();
  for (const line of readFileSync('/etc/hosts', 'utf8').split('\n')) {
    const [address, ...aliases] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (!address) continue;
    for (const alias of aliases) {
      const name = alias.toLowerCase();
      names.set(name, (names.get(name) ?? true) && isInternalAddress(address));
    }
  }
  return [...names].find(
    ([name, loopback]) => loopback && name !== 'localhost' && /^[a-z0-9.-]+$/.test(name),
  )?.[0];
}

/** What a client read back from the proxy. */
export interface ProxyAnswer {
  status: number;
  body: string;
}

/** `GET <url>` through the proxy's unix socket as an absolute-form forward request. */
export function proxiedGet(
  socketPath: string,
  url: string,
  proxyUser?: string,
  headers: Record<string, string> = {},
): Promise<ProxyAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath,
        path: url,
        headers: { ...headers, ...(proxyUser && { 'proxy-authorization': basic(proxyUser) }) },
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * `CONNECT <target>` through the proxy's unix socket; on 200 sends `text`, half-closes and reads
 * the rest, otherwise reads the refusal's body.
 */
export function proxiedConnect(
  socketPath: string,
  target: string,
  text: string,
  proxyUser?: string,
): Promise<ProxyAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({
      socketPath,
      method: 'CONNECT',
      path: target,
      headers: proxyUser ? { 'proxy-authorization': basic(proxyUser) } : {},
      agent: false,
    });
    req.on('connect', (res, socket, head) => {
      let body = head.toString();
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        body += chunk;
      });
      socket.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      socket.on('error', reject);
      if (res.statusCode === 200) socket.end(text);
    });
    req.on('error', reject);
    req.end();
  });
}

/** A basic `Proxy-Authorization` value for `user` (`name` or `name:password`). */
function basic(user: string): string {
  return `Basic ${Buffer.from(user.includes(':') ? user : `${user}:`).toString('base64')}`;
}
