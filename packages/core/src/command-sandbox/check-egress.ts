import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { classifyHost, type HostForm } from './classify-host.js';
import type { EgressAllowList } from './egress-allow-list.js';
import type { EgressRefusalReason } from './egress-policy.js';
import { isInternalAddress } from './internal-address.js';

/** Input of {@link checkEgress}. */
export interface CheckEgressOptions {
  allowList: EgressAllowList;
  /** The host exactly as the request wrote it (IPv6 in brackets), without the port. */
  host: string;
  port: number;
  /**
   * The host the connection will be made to, when a URL parser read it from the request
   * (`127.1` becomes `127.0.0.1`); it must be the host {@link CheckEgressOptions.host} names.
   */
  connectHost?: string | undefined;
}

/** What {@link checkEgress} decided. */
export type EgressDecision =
  /** Connect to one of `addresses`, which were checked; never look the name up again. */
  | { outcome: 'allowed'; addresses: readonly LookupAddress[] }
  | { outcome: 'refused'; reason: EgressRefusalReason }
  /** A listed name that does not resolve (`code`: `ENOTFOUND`, `EAI_AGAIN`, ...). */
  | { outcome: 'unresolved'; code: string };

/**
 * Decides one request of a sandbox's egress proxy. A name must match a name or wildcard entry
 * and is then resolved here; if any address it resolves to is loopback, unspecified or
 * link-local it is refused (`loopback_address`) unless the name is `localhost`. An address must
 * match an address entry and is reached as it is. An IPv4 address written in another form
 * (`127.1`, `0x7f000001`, `2130706433`) is refused (`non_canonical_address`), as is a request
 * whose URL-parsed host differs from what it wrote.
 */
export async function checkEgress(options: CheckEgressOptions): Promise<EgressDecision> {
  const { allowList, port } = options;
  const target = classifyHost(options.host);
  if (target.kind === 'odd-address') return refused('non_canonical_address');
  if (target.kind === 'invalid') return refused('not_allowed');
  if (options.connectHost !== undefined && !sameHost(target, classifyHost(options.connectHost))) {
    return refused('non_canonical_address');
  }
  if (!allowList.allows(target, port)) return refused('not_allowed');
  if (target.kind === 'address') {
    return { outcome: 'allowed', addresses: [{ address: target.address, family: target.family }] };
  }
  let addresses: LookupAddress[];
  try {
    addresses = await lookup(target.name, { all: true });
  } catch (error) {
    return { outcome: 'unresolved', code: (error as NodeJS.ErrnoException).code ?? 'ENOTFOUND' };
  }
  if (addresses.length === 0) return { outcome: 'unresolved', code: 'ENOTFOUND' };
  if (target.name !== 'localhost' && addresses.some(({ address }) => isInternalAddress(address))) {
    return refused('loopback_address');
  }
  return { outcome: 'allowed', addresses };
}

function refused(reason: EgressRefusalReason): EgressDecision {
  return { outcome: 'refused', reason };
}

function sameHost(a: HostForm, b: HostForm): boolean {
  if (a.kind === 'name') return b.kind === 'name' && a.name === b.name;
  return a.kind === 'address' && b.kind === 'address' && a.address === b.address;
}
