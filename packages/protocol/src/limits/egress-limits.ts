/**
 * Most entries of an egress allow-list (`--allow-host`, a sandbox's `network.allowHosts`, a
 * Runtime API session's `allow_hosts`).
 */
export const MAX_ALLOW_HOSTS = 256;

/** Longest allow-list entry, in characters: a 253-character host name and a port. */
export const MAX_ALLOW_HOST_LENGTH = 260;
