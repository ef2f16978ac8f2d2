import { BlockList, isIPv6 } from 'node:net';

/**
 * Addresses that reach this machine or its link rather than a remote host: loopback
 * (127.0.0.0/8, ::1), unspecified (0.0.0.0/8, ::, which Linux connects to loopback) and
 * link-local (169.254.0.0/16 with cloud metadata services, fe80::/10). IPv4-mapped IPv6 forms
 * (`::ffff:127.0.0.1`) count as their IPv4 address.
 */
const INTERNAL = new BlockList();
INTERNAL.addSubnet('127.0.0.0', 8, 'ipv4');
INTERNAL.addSubnet('0.0.0.0', 8, 'ipv4');
INTERNAL.addSubnet('169.254.0.0', 16, 'ipv4');
INTERNAL.addAddress('::1', 'ipv6');
INTERNAL.addAddress('::', 'ipv6');
INTERNAL.addSubnet('fe80::', 10, 'ipv6');

/** True when the IP address `address` is loopback, unspecified or link-local (see above). */
export function isInternalAddress(address: string): boolean {
  return INTERNAL.check(address, isIPv6(address) ? 'ipv6' : 'ipv4');
}

/** True for the unspecified addresses `0.0.0.0` and `::` (and `::ffff:0.0.0.0`). */
export function isUnspecifiedAddress(address: string): boolean {
  return /^(?:0\.0\.0\.0|::|::ffff:0:0|::ffff:0\.0\.0\.0)$/.test(address);
}
