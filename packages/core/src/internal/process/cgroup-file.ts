import { readFile } from 'node:fs/promises';

/** A cgroup controller whose files the metrics read. */
export type CgroupController = 'memory' | 'cpu' | 'cpuacct' | 'pids';

let membership: Promise<string> | undefined;

/**
 * Where each `controller/name` was found (`null`: no such file anywhere). Membership is read
 * once, so the place does not move; a remembered file that can no longer be read is looked for
 * again, and a search that failed for another reason than a missing file is not remembered.
 */
const located = new Map<string, string | null>();

/**
 * The text of `name`, a file of this process's cgroup for `controller`: cgroup v1
 * (`/sys/fs/cgroup/<controller>/<path>/<name>`) or v2 (`/sys/fs/cgroup/<path>/<name>`), also
 * where the cgroup is mounted as the root (inside a container). `undefined` when there is none
 * (not Linux, no such controller or file).
 */
export async function readCgroupFile(
  controller: CgroupController,
  name: string,
): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  const key = `${controller}/${name}`;
  const known = located.get(key);
  if (known === null) return undefined;
  if (known !== undefined) {
    const text = await readFile(known, 'utf8').catch(() => undefined);
    if (text !== undefined) return text;
  }
  const found = await locateCgroupFile(controller, name);
  if (found !== 'unreadable') located.set(key, found?.file ?? null);
  return found === 'unreadable' ? undefined : found?.text;
}

/**
 * Looks for `name` of `controller` in every place it can be; the first readable one wins.
 * `undefined` when it is in none, `'unreadable'` when a read failed otherwise (e.g. `EMFILE`).
 */
async function locateCgroupFile(
  controller: CgroupController,
  name: string,
): Promise<{ file: string; text: string } | 'unreadable' | undefined> {
  membership ??= readFile('/proc/self/cgroup', 'utf8').catch(() => '');
  const lines = (await membership).split('\n');
  const v1Path = lines
    .map((line) => /^\d+:([^:]*):(\/.*)$/.exec(line))
    .find((match) => match?.[1]?.split(',').includes(controller))?.[2];
  const v2Path = lines.map((line) => /^0::(\/.*)$/.exec(line)?.[1]).find(Boolean);
  const candidates = [
    ...(v1Path === undefined ? [] : [`/sys/fs/cgroup/${controller}${v1Path}/${name}`]),
    `/sys/fs/cgroup/${controller}/${name}`,
    ...(v2Path === undefined ? [] : [`/sys/fs/cgroup${v2Path}/${name}`]),
    `/sys/fs/cgroup/${name}`,
  ];
  let unreadable = false;
  for (const file of candidates) {
    const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT' && error.code !== 'ENOTDIR') unreadable = true;
      return undefined;
    });
    if (text !== undefined) return { file, text };
  }
  return unreadable ? 'unreadable' : undefined;
}
