import { statfs } from 'node:fs/promises';
import type { WorkspaceMetrics } from '@agent-workspace/protocol';
import { readCgroupFile } from './cgroup-file.js';
import { readOomKills } from './read-oom-kills.js';

// cgroup v1 writes "no limit" as the largest page-aligned number.
const V1_UNLIMITED = 2 ** 62;

/**
 * What the sandbox this process runs in uses now, from its cgroup (v1 or v2; inside a container
 * the container's): CPU time and CPU limit, memory and its limit, OOM kills, processes and their
 * limit; and the used and total bytes of the file system holding `directory`. A figure that
 * cannot be read is `undefined`.
 */
export async function readSandboxMetrics(directory: string): Promise<WorkspaceMetrics> {
  const [cpu, memory, oomKills, pids, disk] = await Promise.all([
    readCpu(),
    readMemory(),
    readOomKills(),
    readPids(),
    statfs(directory).catch(() => undefined),
  ]);
  return {
    ...cpu,
    ...memory,
    oomKills,
    ...pids,
    diskUsedBytes: disk && (disk.blocks - disk.bfree) * disk.bsize,
    diskTotalBytes: disk && disk.blocks * disk.bsize,
    sampledAt: new Date(),
  };
}

async function readCpu(): Promise<Pick<WorkspaceMetrics, 'cpuSeconds' | 'cpuLimit'>> {
  const [stat, max, usage, quota, period] = await Promise.all([
    readCgroupFile('cpu', 'cpu.stat'),
    readCgroupFile('cpu', 'cpu.max'),
    readCgroupFile('cpuacct', 'cpuacct.usage'),
    readCgroupFile('cpu', 'cpu.cfs_quota_us'),
    readCgroupFile('cpu', 'cpu.cfs_period_us'),
  ]);
  const usageMicros = numberOf(/^usage_usec (\d+)$/m.exec(stat ?? '')?.[1]);
  const [maxQuota, maxPeriod] = (max ?? '').trim().split(' ');
  const v2Limit =
    maxQuota !== undefined && maxQuota !== 'max' && numberOf(maxPeriod)
      ? (numberOf(maxQuota) ?? 0) / (numberOf(maxPeriod) as number)
      : undefined;
  const v1Quota = numberOf(quota);
  const v1Limit =
    v1Quota !== undefined && v1Quota > 0 && numberOf(period)
      ? v1Quota / (numberOf(period) as number)
      : undefined;
  const cpuSeconds =
    usageMicros !== undefined
      ? usageMicros / 1e6
      : numberOf(usage) !== undefined
        ? (numberOf(usage) as number) / 1e9
        : undefined;
  return { cpuSeconds, cpuLimit: v2Limit ?? v1Limit };
}

async function readMemory(): Promise<Pick<WorkspaceMetrics, 'memoryBytes' | 'memoryLimitBytes'>> {
  const [current, max, usage, limit] = await Promise.all([
    readCgroupFile('memory', 'memory.current'),
    readCgroupFile('memory', 'memory.max'),
    readCgroupFile('memory', 'memory.usage_in_bytes'),
    readCgroupFile('memory', 'memory.limit_in_bytes'),
  ]);
  const v1Limit = numberOf(limit);
  return {
    memoryBytes: numberOf(current) ?? numberOf(usage),
    memoryLimitBytes:
      numberOf(max) ?? (v1Limit !== undefined && v1Limit < V1_UNLIMITED ? v1Limit : undefined),
  };
}

async function readPids(): Promise<Pick<WorkspaceMetrics, 'pids' | 'pidsLimit'>> {
  const [current, max] = await Promise.all([
    readCgroupFile('pids', 'pids.current'),
    readCgroupFile('pids', 'pids.max'),
  ]);
  return { pids: numberOf(current), pidsLimit: numberOf(max) };
}

/** The non-negative integer `text` holds (`max` and anything else: `undefined`). */
function numberOf(text: string | undefined): number | undefined {
  const trimmed = text?.trim();
  return trimmed !== undefined && /^\d+$/.test(trimmed) ? Number(trimmed) : undefined;
}
