import { lstat, readdir, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';

/** Name prefix of an egress proxy's socket directory. */
export const EGRESS_SOCKET_DIR_PREFIX = 'aw-egress-';

/** File name of the proxy's socket in its directory. */
export const EGRESS_SOCKET_NAME = 'proxy.sock';

/** A socket directory younger than this may belong to a proxy still starting: never reaped. */
const MIN_STALE_AGE_MS = 60_000;

/**
 * Removes the socket directories in `base` that a process killed before its `close()` left
 * behind: this user's, at least a minute old, with no proxy listening on their socket.
 * Failures are ignored (another process may reap the same directory).
 */
export async function reapEgressSocketDirs(base: string): Promise<void> {
  const names = await readdir(base).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => name.startsWith(EGRESS_SOCKET_DIR_PREFIX))
      .map(async (name) => {
        const dir = path.join(base, name);
        const stats = await lstat(dir).catch(() => undefined);
        if (!stats?.isDirectory() || stats.uid !== process.geteuid?.()) return;
        if (Date.now() - stats.mtimeMs < MIN_STALE_AGE_MS) return;
        if (await isListening(path.join(dir, EGRESS_SOCKET_NAME))) return;
        await rm(dir, { recursive: true, force: true }).catch(() => {});
      }),
  );
}

/** Whether something accepts connections on the unix socket `socketPath`. */
function isListening(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
