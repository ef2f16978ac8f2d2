import { readFile } from 'node:fs/promises';

/** A cgroup controller whose files the metrics read. */
export type CgroupController = 'memory' | 'cpu' | 'cpuacct' | 'pids';

let membership: Promise<string> | undefined;

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
  for (const file of candidates) {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text !== undefined) return text;
  }
  return undefined;
}
