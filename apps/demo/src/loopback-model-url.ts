import { isIPv4 } from 'node:net';
import type { Workspace } from '@agent-workspace/core';

/** The name a Docker container is given for its host's gateway (see `extraHosts`). */
export const HOST_GATEWAY_NAME = 'host.docker.internal';

/** The `extraHosts` entry that makes {@link HOST_GATEWAY_NAME} the host's bridge address. */
export const HOST_GATEWAY_ENTRY = `${HOST_GATEWAY_NAME}:host-gateway`;

/** True when `url`'s host is this machine's loopback: `localhost`, 127.0.0.0/8 or `::1`. */
export function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    (isIPv4(host) && host.startsWith('127.')) ||
    host === '[::1]' ||
    /^\[::ffff:7f[0-9a-f]{2}:/.test(host)
  );
}

/** `url` with its host replaced by {@link HOST_GATEWAY_NAME}, port and path kept. */
export function toHostGatewayUrl(url: string): string {
  const parsed = new URL(url);
  parsed.hostname = HOST_GATEWAY_NAME;
  return parsed.href.replace(/\/$/, url.endsWith('/') ? '/' : '');
}

/**
 * True when a TCP connection from inside `workspace` (a container) to `url`'s host and port
 * succeeds within 5 s.
 */
export async function reachableFrom(workspace: Workspace, url: string): Promise<boolean> {
  const { hostname, port, protocol } = new URL(url);
  const target = `${hostname}/${port || (protocol === 'https:' ? 443 : 80)}`;
  const probe = await workspace.executeCommand(`timeout 5 bash -c '</dev/tcp/${target}'`, {
    timeoutMs: 10_000,
  });
  return probe.exitCode === 0;
}
