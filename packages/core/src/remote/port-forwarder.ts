import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import {
  PORT_PROXY_HEADERS_TIMEOUT_MS,
  portProxyPath,
  SESSION_API_KEY_HEADER,
} from '@agent-workspace/protocol/constants';
import { request } from 'undici';
import WebSocket, { WebSocketServer } from 'ws';
import { joinWebSockets } from '../internal/proxy/join-web-sockets.js';
import type { ExposedPort } from '../workspace/port-exposure.js';

/** Input of {@link startPortForwarder}. */
export interface PortForwarderOptions {
  /** Base URL of the agent-server (a path prefix is kept). */
  host: string;
  /**
   * Its session key at the time of each request (it may change after deferred init), added to
   * every forwarded request and never shown to the clients here.
   */
  sessionKey: () => string | undefined;
  /** The port inside the sandbox. */
  port: number;
}

// Hop-by-hop headers (RFC 9110 7.6.1) and what the forwarder sets itself.
const DROPPED_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  SESSION_API_KEY_HEADER.toLowerCase(),
]);

/**
 * Listens on `127.0.0.1` (a port the system picks) and forwards every request, and every
 * websocket, to the agent-server's port proxy for `port` with the session key: clients here
 * (a browser, `curl`, a test) need no key, and nothing is published beyond loopback. Bodies
 * stream both ways. A proxy that cannot be reached answers 502.
 */
export async function startPortForwarder(options: PortForwarderOptions): Promise<ExposedPort> {
  const { host, sessionKey, port } = options;
  const base = host.replace(/\/+$/, '');
  const keyHeader = (): Record<string, string> => {
    const key = sessionKey();
    return key === undefined ? {} : { [SESSION_API_KEY_HEADER]: key };
  };
  const target = (path: string | undefined) => `${base}${portProxyPath(port, path ?? '/')}`;
  const server = createServer(async (incoming, outgoing) => {
    try {
      const answer = await request(target(incoming.url), {
        method: incoming.method as 'GET',
        headers: { ...forwardable(incoming.headers), ...keyHeader() },
        body: hasBody(incoming) ? incoming : null,
        headersTimeout: PORT_PROXY_HEADERS_TIMEOUT_MS,
        bodyTimeout: 0,
      });
      outgoing.writeHead(answer.statusCode, forwardable(answer.headers as IncomingHttpHeaders));
      await pipeline(answer.body, outgoing);
    } catch (error) {
      if (outgoing.headersSent) {
        outgoing.destroy();
        return;
      }
      outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(
        `cannot reach port ${port} through the agent-server: ${(error as Error).message}`,
      );
    }
  });
  const sockets = new WebSocketServer({ noServer: true });
  server.on('upgrade', (incoming, socket, head) => {
    sockets.handleUpgrade(incoming, socket, head, (client) => {
      const protocols = incoming.headers['sec-websocket-protocol']
        ?.split(',')
        .map((protocol) => protocol.trim())
        .filter(Boolean);
      const upstream = new WebSocket(target(incoming.url).replace(/^http/, 'ws'), protocols, {
        headers: keyHeader(),
      });
      joinWebSockets(client, upstream, `port ${port}`);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    })();
    return closed;
  };
  return { port, url, close, [Symbol.asyncDispose]: close };
}

/** `headers` without hop-by-hop ones, the host and our session key. */
function forwardable(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !DROPPED_HEADERS.has(name.toLowerCase())) kept[name] = value;
  }
  return kept;
}

/** True when the request carries a body (a length, or chunked). */
function hasBody(incoming: IncomingMessage): boolean {
  const length = incoming.headers['content-length'];
  return (
    (length !== undefined && length !== '0') || incoming.headers['transfer-encoding'] !== undefined
  );
}
