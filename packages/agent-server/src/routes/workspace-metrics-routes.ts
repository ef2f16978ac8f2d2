import { readSandboxMetrics } from '@agent-workspace/core/internal';
import {
  WORKSPACE_METRICS_ROUTE,
  type WorkspaceMetricsWire,
  workspaceMetricsWireSchema,
} from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ServerContext } from '../app/server-context.js';

/**
 * Registers our `GET /api/workspace/metrics` (announced as `WORKSPACE_METRICS_CAPABILITY`): what
 * the sandbox the server runs in uses now, read from its cgroup (CPU time and limit, memory and
 * limit, OOM kills, processes and limit) and the disk of its working directory. It takes no
 * input; a figure that cannot be read is `null`.
 */
export function registerWorkspaceMetricsRoutes(
  scope: FastifyInstance,
  context: ServerContext,
): void {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.get(
    WORKSPACE_METRICS_ROUTE,
    {
      schema: {
        tags: ['Workspace'],
        description:
          "What the server's sandbox uses now (its cgroup: CPU, memory, OOM kills, processes, with their limits) and the disk of its working directory.",
        response: { 200: workspaceMetricsWireSchema },
      },
    },
    async (): Promise<WorkspaceMetricsWire> => {
      const metrics = await readSandboxMetrics(context.options.workingDir);
      const figure = (value: number | undefined) => value ?? null;
      return {
        cpu_seconds: figure(metrics.cpuSeconds),
        cpu_limit: figure(metrics.cpuLimit),
        memory_bytes: figure(metrics.memoryBytes),
        memory_limit_bytes: figure(metrics.memoryLimitBytes),
        oom_kills: figure(metrics.oomKills),
        pids: figure(metrics.pids),
        pids_limit: figure(metrics.pidsLimit),
        disk_used_bytes: figure(metrics.diskUsedBytes),
        disk_total_bytes: figure(metrics.diskTotalBytes),
        sampled_at: metrics.sampledAt.toISOString(),
      };
    },
  );
}
