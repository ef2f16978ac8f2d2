import { readFile, rm } from 'node:fs/promises';
import { WorkspaceError } from '@agent-workspace/core';
import { execa } from 'execa';

/** Mount points at or below `dir`, deepest first (mountinfo escapes spaces as `\040`). */
async function mountsBelow(dir: string): Promise<string[]> {
  const table = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  return table
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .map((point) =>
      point.replace(/\\([0-7]{3})/g, (_, octal: string) =>
        String.fromCharCode(Number.parseInt(octal, 8)),
      ),
    )
    .filter((point) => point === dir || point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
}

/**
 * Deletes a root file-system tree made by debootstrap (owned by root). Anything still mounted
 * inside it (`/proc`, `/sys`, bind-mounted devices of an interrupted run) is unmounted first, so
 * the deletion never reaches into the host's file systems; when unmounting fails, nothing is
 * deleted and a `PROVISIONING_ERROR` {@link WorkspaceError} names the mount points.
 */
export async function removeRootTree(dir: string): Promise<void> {
  for (const point of await mountsBelow(dir)) {
    await execa('umount', ['--lazy', point], { reject: false });
  }
  const left = await mountsBelow(dir);
  if (left.length > 0) {
    throw new WorkspaceError({
      code: 'PROVISIONING_ERROR',
      message: `not deleting ${dir}: still mounted at ${left.join(', ')}; unmount them and delete it by hand`,
      details: { dir, mounts: left },
    });
  }
  await rm(dir, { recursive: true, force: true });
}
