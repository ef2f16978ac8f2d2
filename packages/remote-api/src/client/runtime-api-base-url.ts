/** Where a Runtime API is: its origin and the path prefix of its routes. */
export interface RuntimeApiBaseUrl {
  /** `http(s)://host:port`. */
  origin: string;
  /** Path prefix of every route, without a trailing slash (`''` when there is none). */
  basePath: string;
  /** `origin` + `basePath`: the URL as messages name it. */
  url: string;
}

/**
 * Parses the base URL of a Runtime API. Returns why it is unusable as a string: not an
 * http(s) URL, or carrying credentials, a query or a fragment (the key goes in `X-API-Key`,
 * never in the URL, so it cannot end up in logs).
 */
export function runtimeApiBaseUrl(value: string): RuntimeApiBaseUrl | string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http(s) URL';
  if (url.username || url.password) {
    return 'must not carry credentials: pass the key as runtimeApiKey';
  }
  if (url.search || url.hash) return 'must not have a query or a fragment';
  const basePath = url.pathname.replace(/\/+$/, '');
  return { origin: url.origin, basePath, url: `${url.origin}${basePath}` };
}
