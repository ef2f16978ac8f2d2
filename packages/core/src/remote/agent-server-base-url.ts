import { invalidArgument } from '../errors/invalid-argument.js';

/** Where an agent-server is: its origin and the path prefix of its routes. */
export interface AgentServerBaseUrl {
  /** `http(s)://host:port`. */
  origin: string;
  /** Path prefix of every route, without a trailing slash (`''` when there is none). */
  basePath: string;
  /** `origin` + `basePath`: the host as workspaces report it. */
  host: string;
}

/**
 * Parses the `host` option of a remote workspace; anything but an http(s) URL is an
 * `INVALID_ARGUMENT` naming `host`.
 */
export function agentServerBaseUrl(host: string): AgentServerBaseUrl {
  let url: URL;
  try {
    url = new URL(host);
  } catch (error) {
    throw invalidArgument('host', `must be an http(s) URL, got "${host}" (${error})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidArgument('host', `must be an http(s) URL, got "${host}"`);
  }
  const basePath = url.pathname.replace(/\/+$/, '');
  return { origin: url.origin, basePath, host: `${url.origin}${basePath}` };
}
