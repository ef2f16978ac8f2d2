import { isIPv4, isIPv6 } from 'node:net';

/** Longest host name (the DNS limit, without a trailing dot). */
export const MAX_HOST_NAME_LENGTH = 253;

/**
 * What a host string is, read strictly:
 * - `name`: a DNS name, lowercased, without its trailing dot;
 * - `address`: a canonical dotted-quad IPv4 address, or a bracketed IPv6 address (given here in
 *   its compressed form, without brackets);
 * - `odd-address`: something a resolver or URL parser would read as an IPv4 address although it
 *   is not written as one (`127.1`, `0x7f000001`, `2130706433`, `127.0.0.1.`);
 * - `invalid`: anything else (a bare IPv6 address, a zone id, characters no host name has).
 */
export type HostForm =
  | { kind: 'name'; name: string }
  | { kind: 'address'; address: string; family: 4 | 6 }
  | { kind: 'odd-address' }
  | { kind: 'invalid' };

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
/** The WHATWG URL parser's "ends in a number": the last label makes it an IPv4 attempt. */
const NUMERIC_LABEL = /^(?:0x[0-9a-f]*|[0-9]+)$/;

/** Classifies `host` (no port; IPv6 in brackets) as described by {@link HostForm}. */
export function classifyHost(host: string): HostForm {
  if (host.startsWith('[')) {
    const inner = host.endsWith(']') ? host.slice(1, -1) : '';
    if (!isIPv6(inner) || inner.includes('%')) return { kind: 'invalid' };
    return {
      kind: 'address',
      address: new URL(`http://[${inner}]/`).hostname.slice(1, -1),
      family: 6,
    };
  }
  if (isIPv4(host)) return { kind: 'address', address: host, family: 4 };
  const name = host.toLowerCase().replace(/\.$/, '');
  const labels = name.split('.');
  if (NUMERIC_LABEL.test(labels.at(-1) ?? '')) return { kind: 'odd-address' };
  if (name.length > MAX_HOST_NAME_LENGTH || !labels.every((label) => LABEL.test(label))) {
    return { kind: 'invalid' };
  }
  return { kind: 'name', name };
}

/**
 * Splits `host:port` (`[v6]:port`; the port optional) without interpreting either part;
 * `undefined` when it has more than one unbracketed colon or text after the bracket.
 */
export function splitHostPort(authority: string): { host: string; port?: string } | undefined {
  if (authority.startsWith('[')) {
    const end = authority.indexOf(']');
    if (end < 0) return undefined;
    const rest = authority.slice(end + 1);
    if (rest !== '' && !rest.startsWith(':')) return undefined;
    return rest === ''
      ? { host: authority.slice(0, end + 1) }
      : { host: authority.slice(0, end + 1), port: rest.slice(1) };
  }
  const colon = authority.indexOf(':');
  if (colon < 0) return { host: authority };
  if (authority.indexOf(':', colon + 1) >= 0) return undefined;
  return { host: authority.slice(0, colon), port: authority.slice(colon + 1) };
}
