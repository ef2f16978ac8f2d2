import type { WorkspaceMetrics } from '@agent-workspace/protocol';
import type { Workspace } from './workspace.js';

/** Options of {@link ResourceMetrics.metrics}. */
export interface ResourceMetricsOptions {
  signal?: AbortSignal | undefined;
}

/**
 * What a sandboxed workspace uses now: CPU time and limit, memory and limit, OOM kills,
 * processes and limit (the sandbox's cgroup, read by its agent-server) and the disk of its
 * working directory. Remote and sandbox workspaces (Docker, Runtime API) declare the
 * `resourceMetrics` capability (found with {@link resourceMetricsOf}), never by their methods or
 * class.
 */
export interface ResourceMetrics {
  /**
   * One sample. A figure the server cannot read is `undefined`.
   *
   * @throws WorkspaceError `NOT_SUPPORTED` when the agent-server does not announce
   * `WORKSPACE_METRICS_CAPABILITY` (an OpenHands server), `WORKSPACE_CLOSED`, `ABORTED`.
   */
  metrics(options?: ResourceMetricsOptions): Promise<WorkspaceMetrics>;
}

/**
 * `candidate` as {@link ResourceMetrics} when it is a workspace that declares the
 * `resourceMetrics` capability (see `WorkspaceCapabilities`), else `undefined`.
 */
export function resourceMetricsOf(candidate: unknown): ResourceMetrics | undefined {
  const workspace = candidate as Workspace | null | undefined;
  return workspace?.capabilities?.resourceMetrics === true
    ? (workspace as Workspace & ResourceMetrics)
    : undefined;
}
