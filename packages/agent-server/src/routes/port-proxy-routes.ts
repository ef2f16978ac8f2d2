import { joinWebSockets } from '@agent-workspace/core/internal';
import {
  PORT_PROXY_HEADERS_TIMEOUT_MS,
  PORT_PROXY_ROUTE_PREFIX,
} from '@agent-workspace/protocol/constants';
import type { WebSocket as ClientSocket } from '@fastify/websocket';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import WebSocket from 'ws';
import { handToLazyApp, passBodiesThrough } from '../app/hand-to-lazy-app.js';
import { HttpError } from '../app/http-error.js';
import { SESSION_KEY_HEADER_NAME } from '../app/session-auth.js';

/** What a proxied request is sent on: its port and the path after it. */
interface ProxyTarget {
  port: number;
  /** Path and query on the proxied server, starting with `/`. */
  path: string;
}

/**
 * Registers our port proxy (announced as `PORT_PROXY_CAPABILITY`): every method on
 * `/api/workspace/ports/<port>/<path>` goes to `http://127.0.0.1:<port>/<path>` as this server
 * sees it (inside its container), streamed both ways by `@fastify/reply-from`, and a websocket
 * upgrade there is joined to one on the same address. The session key is asked for like on
 * every `/api` route and removed before the request goes on; `Host` becomes the proxied
 * address. 422 names `port` outside 1–65535, 403 refuses this server's own port, 502 says
 * nothing answers there (a sandbox without network has its own loopback). reply-from and its
 * HTTP client are loaded on the first proxied request (see `handToLazyApp`), not at start-up.
 */
export async function registerPortProxyRoutes(scope: FastifyInstance): Promise<void> {
  await scope.register(async (proxy) => {
    passBodiesThrough(proxy);
    const handOn = handToLazyApp({ owner: proxy, build: buildForwarder });
    const forward = async (request: FastifyRequest, reply: FastifyReply) => {
      // Refused here, in the owner's error envelope, before anything is loaded.
      proxyTarget(request);
      await handOn(request, reply);
    };
    for (const url of PROXY_URLS) {
      // A websocket upgrade is a GET: the same route joins it.
      proxy.route({
        method: 'GET',
        url,
        // The proxied server answers HEAD as it does.
        exposeHeadRoute: true,
        schema: { hide: true },
        handler: forward,
        wsHandler: (client: ClientSocket, request: FastifyRequest) => {
          joinWebSocket(client, request, proxyTarget(request));
        },
      });
      proxy.route({ method: OTHER_METHODS, url, schema: { hide: true }, handler: forward });
    }
  });
}

const PROXY_URLS = [`${PORT_PROXY_ROUTE_PREFIX}/:port`, `${PORT_PROXY_ROUTE_PREFIX}/:port/*`];
const OTHER_METHODS = ['DELETE', 'OPTIONS', 'PATCH', 'POST', 'PUT'];

/** The app that streams proxied requests with reply-from, built on the first one. */
async function buildForwarder(): Promise<FastifyInstance> {
  const { default: replyFrom } = await import('@fastify/reply-from');
  const app = Fastify({ logger: false });
  await app.register(replyFrom, {
    undici: { headersTimeout: PORT_PROXY_HEADERS_TIMEOUT_MS, bodyTimeout: 0 },
  });
  passBodiesThrough(app);
  const forward = (request: FastifyRequest, reply: FastifyReply) => {
    const target = proxyTarget(request);
    return reply.from(`http://127.0.0.1:${target.port}${target.path}`, {
      rewriteRequestHeaders: (_original, headers) => forwardedHeaders(headers, target.port),
      onError: (failed, { error }) => {
        failed.code(502).send({
          detail: `nothing answers on port ${target.port} inside the sandbox (${(error as Error).message})`,
        });
      },
    });
  };
  for (const url of PROXY_URLS) {
    app.route({ method: ['GET', ...OTHER_METHODS], url, handler: forward });
  }
  await app.ready();
  return app;
}

/** The port and path of a proxied request; throws the 422 / 403 of a port it refuses. */
function proxyTarget(request: FastifyRequest): ProxyTarget {
  const { port: text } = request.params as { port: string };
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 1 && port <= 65_535)) {
    throw new HttpError(422, [
      {
        type: 'value_error',
        loc: ['path', 'port'],
        msg: 'Value error, port must be an integer from 1 to 65535',
        input: text,
      },
    ]);
  }
  if (port === request.socket.localPort) {
    throw new HttpError(403, "the port proxy does not reach the agent-server's own port");
  }
  const prefix = `${PORT_PROXY_ROUTE_PREFIX}/${text}`;
  const rest = request.url.slice(prefix.length);
  return { port, path: rest.startsWith('/') ? rest : `/${rest}` };
}

/** The request's headers for the proxied server: without our session key, `Host` its own. */
function forwardedHeaders(
  headers: Record<string, string | string[] | undefined>,
  port: number,
): Record<string, string | string[] | undefined> {
  const { [SESSION_KEY_HEADER_NAME]: _key, host: _host, ...rest } = headers;
  return { ...rest, host: `127.0.0.1:${port}` };
}

/** Joins the client's websocket to one on the proxied port, frame for frame, close for close. */
function joinWebSocket(client: ClientSocket, request: FastifyRequest, target: ProxyTarget): void {
  const protocols = request.headers['sec-websocket-protocol']
    ?.split(',')
    .map((protocol) => protocol.trim())
    .filter(Boolean);
  const upstream = new WebSocket(`ws://127.0.0.1:${target.port}${target.path}`, protocols, {
    headers: { host: `127.0.0.1:${target.port}` },
  });
  joinWebSockets(client, upstream, `port ${target.port}`);
}
