import { WorkspaceError } from '../errors/workspace-error.js';

/** Throws `NOT_SUPPORTED` off Linux: the occupancy leases are Linux abstract unix sockets. */
export function assertLinux(): void {
  if (process.platform !== 'linux') {
    throw new WorkspaceError({
      code: 'NOT_SUPPORTED',
      message:
        'workspace occupancy leases need Linux (they are abstract unix sockets the kernel frees ' +
        `when their holder dies); this is ${process.platform}`,
    });
  }
}
