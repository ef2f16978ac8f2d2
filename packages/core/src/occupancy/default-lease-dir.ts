import { chmod, lstat, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WorkspaceError } from '../errors/workspace-error.js';

/**
 * Where lease records go by default: `$XDG_RUNTIME_DIR/agent-workspace/leases` when the
 * variable is set (a per-user directory the system empties at logout and reboot), else
 * `<os.tmpdir()>/agent-workspace-leases-<uid>`.
 */
export function defaultLeaseDir(): string {
  const runtimeDir = process.env.XDG_RUNTIME_DIR;
  if (runtimeDir !== undefined && path.isAbsolute(runtimeDir)) {
    return path.join(runtimeDir, 'agent-workspace', 'leases');
  }
  return path.join(os.tmpdir(), `agent-workspace-leases-${process.getuid?.() ?? 'user'}`);
}

/**
 * Creates `leaseDir` (mode 0700) when missing and checks it is a real directory of this user,
 * not a symbolic link, and closed to others (a group or other bit is taken away).
 *
 * @throws WorkspaceError `FORBIDDEN` when it is a link, not a directory, or another user's.
 */
export async function openLeaseDir(leaseDir: string): Promise<string> {
  const resolved = path.resolve(leaseDir);
  await mkdir(resolved, { recursive: true, mode: 0o700 });
  const stats = await lstat(resolved);
  const uid = process.getuid?.();
  if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid)) {
    throw new WorkspaceError({
      code: 'FORBIDDEN',
      message: `leaseDir: ${resolved} is not a directory of this user (uid ${uid})`,
      details: { field: 'leaseDir', path: resolved },
    });
  }
  if ((stats.mode & 0o077) !== 0) await chmod(resolved, 0o700);
  return resolved;
}
