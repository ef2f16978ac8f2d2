import { readFile } from 'node:fs/promises';
import net from 'node:net';

/**
 * Linux abstract unix sockets as locks: binding a name succeeds for one socket at a time, and
 * the kernel frees the name when the socket closes, including when its process dies (even by
 * `SIGKILL`). Names live in the network namespace, not the file system.
 */

/** Prefix of every abstract socket name of the occupancy leases (without the leading NUL). */
export const LEASE_SOCKET_PREFIX = 'agent-workspace/lease/';

/** Socket names of one lease key's leases (without the leading NUL). */
export interface LeaseSocketNames {
  /** Serialises every check-and-take and release of the key's leases. */
  guard: string;
  /** Held by the `exclusive_write` holder: the lock. */
  write: string;
  /** Prefix of the `exclusive_write` holder's own name (`<prefix><leaseId>`): its liveness. */
  writerPrefix: string;
  /** Prefix of the `shared_read` holders' names (`<prefix><leaseId>`). */
  readPrefix: string;
}

/** The socket names of `leaseKey`'s leases (see `directoryLeaseTarget`). */
export function leaseSocketNames(leaseKey: string): LeaseSocketNames {
  const base = `${LEASE_SOCKET_PREFIX}${leaseKey}/`;
  return {
    guard: `${base}guard`,
    write: `${base}write`,
    writerPrefix: `${base}writer/`,
    readPrefix: `${base}read/`,
  };
}

/**
 * Binds the abstract socket `name`: the listening server, or `undefined` when another socket
 * holds the name. The server does not keep the process alive and drops any connection.
 */
export function bindAbstractSocket(name: string): Promise<net.Server | undefined> {
  return new Promise((resolve, reject) => {
    const server = net.createServer((connection) => connection.destroy());
    const onError = (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolve(undefined);
      else reject(error);
    };
    server.once('error', onError);
    server.listen({ path: `\0${name}` }, () => {
      server.off('error', onError);
      server.unref();
      resolve(server);
    });
  });
}

/** Closes a server {@link bindAbstractSocket} made; the name is free when this resolves. */
export function closeAbstractSocket(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * True when a socket holds `name`: probed by binding it (and closing at once when that
 * succeeds). Call it under the lease key's guard, so the probe never races a real taker.
 */
export async function isSocketNameHeld(name: string): Promise<boolean> {
  const probe = await bindAbstractSocket(name);
  if (probe === undefined) return true;
  await closeAbstractSocket(probe);
  return false;
}

/**
 * The bound abstract socket names that start with `prefix`, read from `/proc/net/unix` (this
 * network namespace's unix sockets). Candidates only: confirm each with {@link isSocketNameHeld}.
 */
export async function listAbstractSocketNames(prefix: string): Promise<string[]> {
  const table = await readFile('/proc/net/unix', 'utf8');
  const names = new Set<string>();
  const marker = `@${prefix}`;
  for (const line of table.split('\n')) {
    const at = line.indexOf(marker);
    if (at === -1) continue;
    const name = line.slice(at + 1).trim();
    if (!/\s/.test(name)) names.add(name);
  }
  return [...names];
}
