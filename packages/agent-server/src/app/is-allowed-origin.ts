/** Hosts whose origins are always allowed, on any scheme and port (as OpenHands does). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether CORS lets a browser page at `origin` call the server, following OpenHands'
 * `LocalhostCORSMiddleware`: localhost and 127.0.0.1 on any port, the host named by
 * `dockerHostAddr` (env `DOCKER_HOST_ADDR`), and every origin listed in `allowList` exactly
 * (`*` allows all).
 */
export function isAllowedOrigin(
  origin: string,
  allowList: readonly string[],
  dockerHostAddr?: string,
): boolean {
  if (allowList.includes('*') || allowList.includes(origin)) return true;
  if (!URL.canParse(origin)) return false;
  const { hostname } = new URL(origin);
  return LOOPBACK_HOSTS.has(hostname) || (!!dockerHostAddr && hostname === dockerHostAddr);
}
