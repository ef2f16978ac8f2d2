import { createSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import type Docker from 'dockerode';
import { type DockerConnection, isLoopback } from './docker-workspace-options.js';
import { describeDockerEngine } from './resolve-docker.js';

/** How one container is reached: at its own network address, or through published ports. */
export type ContainerConnection = 'bridge' | 'published-port';

/** Options of {@link chooseConnection}. */
export interface ChooseConnectionOptions {
  docker: Docker;
  /** The `connect` option. */
  connect: DockerConnection;
  /** The `network` option; Docker's `bridge` when unset. */
  network?: string | undefined;
  /** The `publishAddress` option: one that is not loopback asks for published ports. */
  publishAddress: string;
  /**
   * The workspace will use a key the caller chooses, which may also open other containers
   * (`initialize()` after `deferInit`). `'auto'` then publishes ports (see
   * {@link chooseConnection}).
   */
  sharedKey?: boolean | undefined;
}

/** The choice, and whether the address must be seen to answer (`'auto'` only). */
export interface ChosenConnection {
  connection: ContainerConnection;
  /** Check the address once the server listens, and fall back to published ports if it fails. */
  verify: boolean;
}

/** Per engine and network: can this process reach containers at their own address? */
const bridgeReachable = new Map<string, Promise<boolean>>();

/**
 * Resolves `connect`: `'bridge'` and `'published-port'` as given; `'auto'` is `'bridge'` (to be
 * verified) when this process runs on Linux, reaches the engine over a local socket,
 * `publishAddress` is a loopback address (another asks for ports reachable there), and the
 * network's gateway is an address of one of this host's interfaces (its bridge is on this host,
 * not in Docker Desktop's VM or rootless Docker's namespace), and the key is not `sharedKey`,
 * else `'published-port'`. The gateway check runs once per engine and network in this process.
 *
 * Docker gives a dead container's bridge address to the next container at once. A workspace's
 * own random key (which its requests carry even when the server accepts a `sessionApiKey` too)
 * makes a request that reaches that newcomer fail (and be read as the sandbox's exit); a key
 * shared with it would let the request run there.
 */
export async function chooseConnection({
  docker,
  connect,
  network = 'bridge',
  publishAddress,
  sharedKey = false,
}: ChooseConnectionOptions): Promise<ChosenConnection> {
  if (connect !== 'auto') return { connection: connect, verify: false };
  const local = process.platform === 'linux' && usesLocalSocket(docker);
  // `container:<name>` shares another container's network: no address of its own.
  if (sharedKey || !local || !isLoopback(publishAddress) || network.includes(':')) {
    return { connection: 'published-port', verify: false };
  }
  const key = cacheKey(docker, network);
  let reachable = bridgeReachable.get(key);
  if (!reachable) {
    reachable = gatewayIsLocal(docker, network);
    bridgeReachable.set(key, reachable);
    // A failed inspect (an engine hiccup) is not remembered.
    reachable.catch(() => bridgeReachable.delete(key));
  }
  const bridge = await reachable.catch(() => false);
  return bridge
    ? { connection: 'bridge', verify: true }
    : { connection: 'published-port', verify: false };
}

/** Remembers that containers on `network` did not answer at their address: `'auto'` publishes. */
export function forgetBridge(docker: Docker, network = 'bridge'): void {
  bridgeReachable.set(cacheKey(docker, network), Promise.resolve(false));
}

function cacheKey(docker: Docker, network: string): string {
  return `${describeDockerEngine(docker)}\n${network}`;
}

/** A unix socket (not `tcp://`, not `ssh://`): the engine runs on this machine or in its VM. */
function usesLocalSocket(docker: Docker): boolean {
  const modem = docker.modem as unknown as { host?: unknown; protocol?: unknown };
  return !(typeof modem.host === 'string' && modem.host) && modem.protocol !== 'ssh';
}

async function gatewayIsLocal(docker: Docker, network: string): Promise<boolean> {
  // One quick GET (dockerode's network inspect takes no abort signal).
  const info = (await docker.getNetwork(network).inspect()) as {
    IPAM?: { Config?: { Gateway?: string; Subnet?: string }[] | null };
  };
  const gateways = (info.IPAM?.Config ?? []).flatMap((entry) => {
    const gateway = entry.Gateway || defaultGateway(entry.Subnet);
    return gateway ? [gateway] : [];
  });
  for (const gateway of gateways) if (await isLocalAddress(gateway)) return true;
  return false;
}

/**
 * The gateway Docker gives an IPv4 subnet that names none, its first host address: a freshly
 * installed engine's first start reports the default bridge's subnet without its gateway.
 */
export function defaultGateway(subnet: string | undefined): string | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(subnet ?? '');
  if (!match) return undefined;
  const prefix = Number(match[5]);
  if (prefix > 30) return undefined;
  const address = match.slice(1, 5).reduce((value, octet) => value * 256 + Number(octet), 0);
  const mask = prefix === 0 ? 0 : 2 ** 32 - 2 ** (32 - prefix);
  const first = ((address & mask) >>> 0) + 1;
  return [24, 16, 8, 0].map((shift) => Math.floor(first / 2 ** shift) % 256).join('.');
}

/**
 * True when `address` is assigned to an interface of this host: a UDP socket can bind to it
 * (`EADDRNOTAVAIL` otherwise). Unlike `os.networkInterfaces()` this sees an interface that is
 * down, as Docker's bridge is while no container runs.
 */
function isLocalAddress(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket(isIPv6(address) ? 'udp6' : 'udp4');
    socket.once('error', () => {
      socket.close();
      resolve(false);
    });
    socket.bind({ address, port: 0, exclusive: true }, () => {
      socket.close();
      resolve(true);
    });
  });
}
