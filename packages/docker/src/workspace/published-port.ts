import type Docker from 'dockerode';
import { dialAddress } from './resolve-docker.js';

/** A container port published on the engine's host, as this process reaches it. */
export interface PublishedPort {
  /** The port inside the container. */
  containerPort: number;
  /** Address to dial (IPv6 in brackets). */
  host: string;
  /** Host port Docker picked. */
  port: number;
  /** `http://<host>:<port>`. */
  url: string;
}

/** Options of {@link readPublishedPorts}. */
export interface ReadPublishedPortsOptions {
  docker: Docker;
  /** `docker inspect` of the started container. */
  info: Docker.ContainerInspectInfo;
  /** The address ports were published on (preferred when Docker reports several bindings). */
  publishAddress: string;
}

/** The published TCP ports of a started container, by container port, from the engine's port map. */
export function readPublishedPorts({
  docker,
  info,
  publishAddress,
}: ReadPublishedPortsOptions): Map<number, PublishedPort> {
  const ports = new Map<number, PublishedPort>();
  for (const [key, bindings] of Object.entries(info.NetworkSettings.Ports ?? {})) {
    const [port, protocol] = key.split('/');
    if (protocol !== 'tcp' || !bindings?.length) continue;
    const binding = bindings.find((entry) => entry.HostIp === publishAddress) ?? bindings[0]!;
    const host = dialAddress(docker, binding.HostIp);
    const hostPort = Number(binding.HostPort);
    if (!Number.isInteger(hostPort) || hostPort <= 0) continue;
    ports.set(Number(port), {
      containerPort: Number(port),
      host,
      port: hostPort,
      url: `http://${host}:${hostPort}`,
    });
  }
  return ports;
}
