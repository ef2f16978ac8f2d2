import { z } from 'zod';

const count = z.number().nonnegative().nullable();

/**
 * Wire shape of {@link WorkspaceMetrics} (snake_case). Each figure is `null` where it cannot be
 * read (no cgroup controller, not Linux); a limit is `null` when there is none.
 */
export const workspaceMetricsWireSchema = z.object({
  /** CPU time used by the sandbox's processes since it started, in seconds. */
  cpu_seconds: count,
  /** CPUs the sandbox may use (its CFS quota over period), `null` when unlimited. */
  cpu_limit: count,
  memory_bytes: count,
  memory_limit_bytes: count,
  /** Processes the kernel's OOM killer has ended in the sandbox. */
  oom_kills: count,
  pids: count,
  pids_limit: count,
  /** Used and total bytes of the file system holding the working directory. */
  disk_used_bytes: count,
  disk_total_bytes: count,
  /** ISO 8601 time of the sample. */
  sampled_at: z.string(),
});

/** Wire JSON of {@link WorkspaceMetrics}. */
export type WorkspaceMetricsWire = z.infer<typeof workspaceMetricsWireSchema>;

/** What a sandboxed workspace uses now; each figure `undefined` where it cannot be read. */
export interface WorkspaceMetrics {
  /** CPU time used by the sandbox's processes since it started, in seconds. */
  cpuSeconds?: number | undefined;
  /** CPUs the sandbox may use; `undefined` when unlimited. */
  cpuLimit?: number | undefined;
  memoryBytes?: number | undefined;
  memoryLimitBytes?: number | undefined;
  /** Processes the kernel's OOM killer has ended in the sandbox. */
  oomKills?: number | undefined;
  pids?: number | undefined;
  pidsLimit?: number | undefined;
  /** Used and total bytes of the file system holding the working directory. */
  diskUsedBytes?: number | undefined;
  diskTotalBytes?: number | undefined;
  /** When the sample was taken. */
  sampledAt: Date;
}

/** {@link WorkspaceMetrics} of its wire JSON (checked against {@link workspaceMetricsWireSchema}). */
export function workspaceMetricsFromWire(json: unknown): WorkspaceMetrics {
  const wire = workspaceMetricsWireSchema.parse(json);
  const value = (figure: number | null) => figure ?? undefined;
  return {
    cpuSeconds: value(wire.cpu_seconds),
    cpuLimit: value(wire.cpu_limit),
    memoryBytes: value(wire.memory_bytes),
    memoryLimitBytes: value(wire.memory_limit_bytes),
    oomKills: value(wire.oom_kills),
    pids: value(wire.pids),
    pidsLimit: value(wire.pids_limit),
    diskUsedBytes: value(wire.disk_used_bytes),
    diskTotalBytes: value(wire.disk_total_bytes),
    sampledAt: new Date(wire.sampled_at),
  };
}
