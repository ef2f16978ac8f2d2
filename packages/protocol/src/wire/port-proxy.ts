/**
 * Our port-proxy extension of the agent-server protocol: any method on
 * `{@link PORT_PROXY_ROUTE_PREFIX}/<port>/<path>` (and a websocket upgrade there) is passed to
 * `http://127.0.0.1:<port>/<path>` as the server sees it (inside its container or VM), so a dev
 * server an agent started in the sandbox is reachable with the session key. The key and cookies
 * of ours never reach the proxied server. A server that offers it lists
 * {@link PORT_PROXY_CAPABILITY} in `/server_info`.
 */
export const PORT_PROXY_CAPABILITY = 'agent_workspace.port_proxy_v1';

/** Prefix of the proxied paths: `${PORT_PROXY_ROUTE_PREFIX}/<port>/<path>`. */
export const PORT_PROXY_ROUTE_PREFIX = '/api/workspace/ports';

/** How long the proxy waits for the proxied server's response headers, in milliseconds. */
export const PORT_PROXY_HEADERS_TIMEOUT_MS = 30_000;

/** The path of `path` (starting with `/`) on `port` through the port proxy. */
export function portProxyPath(port: number, path = '/'): string {
  return `${PORT_PROXY_ROUTE_PREFIX}/${port}${path.startsWith('/') ? path : `/${path}`}`;
}
