/**
 * Our metrics extension of the agent-server protocol: `GET {@link WORKSPACE_METRICS_ROUTE}`
 * answers a `WorkspaceMetricsWire`: what the sandbox the server runs in uses now (CPU time,
 * memory, OOM kills and processes of its cgroup, with their limits) and the disk of its working
 * directory. Inside a container, the server's cgroup is the container's. A server that offers it
 * lists {@link WORKSPACE_METRICS_CAPABILITY} in `/server_info`.
 */
export const WORKSPACE_METRICS_CAPABILITY = 'agent_workspace.workspace_metrics_v1';

/** Path of the metrics route. */
export const WORKSPACE_METRICS_ROUTE = '/api/workspace/metrics';
