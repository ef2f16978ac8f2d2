import type Docker from 'dockerode';
import type { PublishedPort } from './published-port.js';

/** Options of {@link readBridgePorts}. */
export interface ReadBridgePortsOptions {
  /** `docker inspect` of the started container. */
  info: Docker.ContainerInspectInfo;
  /** The `network` option; Docker's `bridge` when unset. */
  network?: string | undefined;
  /** The container ports to give (the agent-server's and `extraPorts`). */
  ports: number[];
}

/**
 * The container's ports at its own address on `network` (IPv4, else IPv6 in brackets), shaped
 * like published ports (`port` is the container port); empty when it has no address there.
 */
export function readBridgePorts({
  info,
  network = 'bridge',
  ports,
}: ReadBridgePortsOptions): Map<number, PublishedPort> {
  const networks = info.NetworkSettings.Networks ?? {};
  // A network given by id is listed under its name: then the container's only network.
  const entries = Object.values(networks);
  const endpoint = networks[network] ?? (entries.length === 1 ? entries[0] : undefined);
  const address = endpoint?.IPAddress || endpoint?.GlobalIPv6Address;
  const result = new Map<number, PublishedPort>();
  if (!address) return result;
  const host = address.includes(':') ? `[${address}]` : address;
  for (const port of ports) {
    result.set(port, { containerPort: port, host, port, url: `http://${host}:${port}` });
  }
  return result;
}
