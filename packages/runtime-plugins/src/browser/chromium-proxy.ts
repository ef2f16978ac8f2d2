import { WorkspaceError } from '@agent-workspace/core';

/** Playwright's `proxy` launch option. */
export interface ChromiumProxy {
  /** `scheme://host:port` of the proxy. */
  server: string;
  /** Comma-separated hosts that go direct: always loopback, plus `NO_PROXY`'s. */
  bypass: string;
  username?: string | undefined;
  password?: string | undefined;
}

/** What {@link chromiumProxy} found: the proxy, if any, and a warning for the log. */
export interface ChromiumProxyChoice {
  proxy: ChromiumProxy | undefined;
  warning?: string | undefined;
}

/**
 * Hosts that always go direct. Naming them also stops Playwright from adding `<-loopback>`,
 * which would send loopback through the proxy; Chromium's implicit rules keep the rest of
 * loopback (`*.localhost`, `127.0.0.0/8`) direct.
 */
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];
const SCHEMES = new Set(['http:', 'https:', 'socks4:', 'socks5:']);

/**
 * The proxy Chromium uses, from the environment its processes get: `HTTPS_PROXY` (or
 * `https_proxy`), else `HTTP_PROXY` (`http_proxy`), for every scheme (Chromium takes one proxy
 * through Playwright; when both are set and differ, `HTTPS_PROXY` wins and the warning says so),
 * with loopback and the `NO_PROXY` (`no_proxy`) hosts direct. `NO_PROXY=*` means no proxy. A
 * value without a scheme is an `http://` proxy, as curl reads it.
 *
 * @throws WorkspaceError `INVALID_CONFIG` naming the variable when it is not a proxy URL.
 */
export function chromiumProxy(environment: Readonly<Record<string, string>>): ChromiumProxyChoice {
  const https = variable(environment, 'HTTPS_PROXY');
  const http = variable(environment, 'HTTP_PROXY');
  const chosen = https ?? http;
  if (chosen === undefined) return { proxy: undefined };
  const noProxy = (variable(environment, 'NO_PROXY')?.value ?? '')
    .split(',')
    .map((host) => host.trim())
    .filter(Boolean);
  if (noProxy.includes('*')) return { proxy: undefined };
  const raw = chosen.value.includes('://') ? chosen.value : `http://${chosen.value}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw proxyError(chosen.name, 'is not a URL');
  }
  if (!SCHEMES.has(url.protocol) || url.hostname === '') {
    throw proxyError(chosen.name, 'must be an http(s) or socks proxy URL such as http://host:3128');
  }
  const warning =
    https !== undefined && http !== undefined && https.value !== http.value
      ? `${https.name} and ${http.name} name different proxies; Chromium uses ${https.name} for every scheme`
      : undefined;
  return {
    proxy: {
      server: `${url.protocol}//${url.host}`,
      bypass: [...LOOPBACK, ...noProxy].join(','),
      username: url.username ? decodeURIComponent(url.username) : undefined,
      password: url.password ? decodeURIComponent(url.password) : undefined,
    },
    warning,
  };
}

/** The lower-case spelling of `name`, else the upper-case one, when set and not empty. */
function variable(
  environment: Readonly<Record<string, string>>,
  name: string,
): { name: string; value: string } | undefined {
  for (const spelling of [name.toLowerCase(), name]) {
    const value = environment[spelling]?.trim();
    if (value) return { name: spelling, value };
  }
  return undefined;
}

function proxyError(name: string, reason: string): WorkspaceError {
  return new WorkspaceError({
    code: 'INVALID_CONFIG',
    message: `environment.${name} ${reason}`,
    details: { field: `environment.${name}` },
  });
}
