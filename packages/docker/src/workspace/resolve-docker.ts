import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';

/** How to reach the Docker engine. */
export interface DockerConnectionOptions {
  /** A dockerode client to use (never closed by agent-workspace). */
  docker?: Docker | undefined;
  /** Options for a new dockerode client; default: `DOCKER_HOST` or the default socket. */
  dockerOptions?: Docker.DockerOptions | undefined;
}

/** The given client, or a new one from `dockerOptions` / `DOCKER_HOST` / the default socket. */
export function resolveDocker({ docker, dockerOptions }: DockerConnectionOptions = {}): Docker {
  return docker ?? new Docker(dockerOptions);
}

interface ModemFields {
  socketPath?: unknown;
  host?: unknown;
  port?: unknown;
  protocol?: unknown;
}

/** Names the engine a client talks to, e.g. `unix:///var/run/docker.sock` or `tcp://10.0.0.5:2376`. */
export function describeDockerEngine(docker: Docker): string {
  const modem = docker.modem as unknown as ModemFields;
  if (typeof modem.host === 'string' && modem.host) {
    const protocol =
      modem.protocol === 'https' || modem.protocol === 'http' ? 'tcp' : modem.protocol;
    return `${String(protocol ?? 'tcp')}://${modem.host}${modem.port ? `:${String(modem.port)}` : ''}`;
  }
  if (typeof modem.socketPath === 'string') return `unix://${modem.socketPath}`;
  // dockerode's default: the Docker Desktop user socket when it exists, else the system one.
  const user = path.join(os.homedir(), '.docker', 'run', 'docker.sock');
  return `unix://${existsSync(user) ? user : '/var/run/docker.sock'}`;
}

/**
 * The address to dial for a port published on `hostIp`: that address itself, unless it is a
 * wildcard, then the engine's host (a remote engine) or loopback (a local socket).
 */
export function dialAddress(docker: Docker, hostIp: string | undefined): string {
  const wildcard = !hostIp || hostIp === '0.0.0.0' || hostIp === '::';
  const modemHost = (docker.modem as unknown as ModemFields).host;
  const address = wildcard ? (typeof modemHost === 'string' && modemHost) || '127.0.0.1' : hostIp;
  return address.includes(':') ? `[${address}]` : address;
}
