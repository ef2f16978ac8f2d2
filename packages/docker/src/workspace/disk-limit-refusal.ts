import { WorkspaceError } from '@agent-workspace/core';

/**
 * Throws `INVALID_CONFIG` naming `resources.diskBytes` when `error` is the engine refusing a
 * container's size limit (`--storage-opt size`), which only some storage drivers can enforce
 * (overlay2 on xfs with `pquota`, btrfs, zfs); returns for any other error.
 */
export function throwIfDiskLimitRefused(error: unknown): void {
  const reason = error instanceof Error ? error.message : String(error);
  if (!/storage-opt|storage opt/i.test(reason)) return;
  const engineReason = reason.replace(/^\(HTTP code \d+\)[^-]*- /, '').trim();
  throw new WorkspaceError({
    code: 'INVALID_CONFIG',
    message: `invalid docker workspace options: resources.diskBytes: this engine's storage driver cannot limit a container's size (${engineReason})`,
    details: { kind: 'docker', fields: ['resources.diskBytes'] },
    cause: error,
  });
}
