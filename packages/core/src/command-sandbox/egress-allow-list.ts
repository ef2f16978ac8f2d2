import { MAX_ALLOW_HOSTS } from '@agent-workspace/protocol/constants';
import { invalidArgument } from '../errors/invalid-argument.js';
import {
  classifyHost,
  type HostForm,
  MAX_HOST_NAME_LENGTH,
  splitHostPort,
} from './classify-host.js';
import { isUnspecifiedAddress } from './internal-address.js';

/** Ports an entry without `:port` allows: HTTP and HTTPS. */
export const DEFAULT_EGRESS_PORTS: readonly number[] = [80, 443];

/** One parsed entry of an {@link EgressAllowList}. */
export interface AllowHost {
  /**
   * The entry normalised: lowercased, without a trailing dot, IPv6 compressed in brackets,
   * `:port` kept when given (`example.com`, `*.example.com:8443`, `[::1]:8080`).
   */
  readonly entry: string;
  /** `name` matches itself, `wildcard` (`*.example.com`) every name below it, `address` itself. */
  readonly kind: 'name' | 'wildcard' | 'address';
  /** The name (for a wildcard: the part after `*.`) or the address (IPv6 without brackets). */
  readonly host: string;
  readonly ports: readonly number[];
}

/** A target host a request names, as {@link classifyHost} read it. */
export type EgressTarget = Extract<HostForm, { kind: 'name' } | { kind: 'address' }>;

/**
 * The hosts a sandbox may reach through its egress proxy. Entries are `host` or `host:port`
 * (ports 80 and 443 when none is given):
 * - a DNS name, matched case-insensitively and without a trailing dot;
 * - `*.example.com`: every name below `example.com` at any depth, not `example.com` itself
 *   (the part after `*.` needs at least two labels);
 * - an IPv4 address in dotted-quad form, or an IPv6 address in brackets (`[::1]:8080`). An
 *   address entry matches only a request for that same literal, never a name that resolves to it.
 *
 * Requests for a name match only name and wildcard entries, requests for an address only
 * address entries; an address in another form (`127.1`, `0x7f000001`) matches nothing.
 */
export class EgressAllowList {
  readonly entries: readonly AllowHost[];

  private constructor(entries: readonly AllowHost[]) {
    this.entries = entries;
  }

  /**
   * Parses `value`, an array of entries (see the class).
   *
   * @throws WorkspaceError `INVALID_ARGUMENT` naming `field` (not an array, over
   * {@link MAX_ALLOW_HOSTS} entries) or `field[i]` (a bad entry), with the reason.
   */
  static parse(value: unknown, field: string): EgressAllowList {
    if (!Array.isArray(value)) {
      throw invalidArgument(field, 'must be an array of "host" or "host:port" strings');
    }
    if (value.length > MAX_ALLOW_HOSTS) {
      throw invalidArgument(field, `has ${value.length} entries; at most ${MAX_ALLOW_HOSTS}`);
    }
    return new EgressAllowList(
      value.map((entry, index) => parseEntry(entry, `${field}[${index}]`)),
    );
  }

  /** Whether a request for `target` at `port` is allowed. */
  allows(target: EgressTarget, port: number): boolean {
    return this.entries.some((entry) => entry.ports.includes(port) && matches(entry, target));
  }
}

function matches(entry: AllowHost, target: EgressTarget): boolean {
  if (target.kind === 'address') return entry.kind === 'address' && entry.host === target.address;
  if (entry.kind === 'name') return entry.host === target.name;
  return entry.kind === 'wildcard' && target.name.endsWith(`.${entry.host}`);
}

function parseEntry(value: unknown, field: string): AllowHost {
  if (typeof value !== 'string') {
    throw invalidArgument(field, `must be a "host" or "host:port" string, got ${typeof value}`);
  }
  const shown = JSON.stringify(value.length > 300 ? `${value.slice(0, 300)}...` : value);
  const parts = splitHostPort(value);
  if (parts === undefined) {
    throw invalidArgument(
      field,
      `must be "host" or "host:port" (IPv6 in brackets: "[::1]:8080"), got ${shown}`,
    );
  }
  const ports =
    parts.port === undefined ? DEFAULT_EGRESS_PORTS : [parsePort(parts.port, field, shown)];
  const wildcard = parts.host.startsWith('*.');
  const form = classifyHost(wildcard ? parts.host.slice(2) : parts.host);
  const suffix = parts.port === undefined ? '' : `:${ports[0]}`;
  if (form.kind === 'odd-address') {
    throw invalidArgument(
      field,
      `is an IPv4 address in a non-canonical form; write it as four decimal numbers (a.b.c.d), got ${shown}`,
    );
  }
  if (form.kind === 'invalid') {
    throw invalidArgument(
      field,
      `must be a host name of at most ${MAX_HOST_NAME_LENGTH} characters (letters, digits, "-", "_"; "*." for every name below one), an IPv4 address or an IPv6 address in brackets, optionally with ":port", got ${shown}`,
    );
  }
  if (form.kind === 'address') {
    if (wildcard) throw invalidArgument(field, `cannot put "*." before an address, got ${shown}`);
    if (isUnspecifiedAddress(form.address)) {
      throw invalidArgument(
        field,
        `is the unspecified address, which is no destination; got ${shown}`,
      );
    }
    const host = form.family === 6 ? `[${form.address}]` : form.address;
    return { entry: `${host}${suffix}`, kind: 'address', host: form.address, ports };
  }
  if (wildcard && !form.name.includes('.')) {
    throw invalidArgument(
      field,
      `needs at least two labels after "*." (a whole top-level domain is not allowed), got ${shown}`,
    );
  }
  return {
    entry: `${wildcard ? '*.' : ''}${form.name}${suffix}`,
    kind: wildcard ? 'wildcard' : 'name',
    host: form.name,
    ports,
  };
}

function parsePort(text: string, field: string, shown: string): number {
  const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : 0;
  if (port < 1 || port > 65_535) {
    throw invalidArgument(field, `has a port that is not a number from 1 to 65535, got ${shown}`);
  }
  return port;
}
