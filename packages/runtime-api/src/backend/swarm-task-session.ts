import { AGENT_SERVER_PORT, dialAddress } from '@agent-workspace/docker/engine';
import type Docker from 'dockerode';
import { ownLabels } from './own-labels.js';
import type { BackendSession } from './runtime-backend.js';

/** Task states before `running`: the task is being scheduled, pulled, created or started. */
const PENDING_TASK_STATES = new Set([
  'new',
  'allocated',
  'pending',
  'assigned',
  'accepted',
  'preparing',
  'ready',
  'starting',
]);
/** Task states a task ends in by itself (restart `none`: nothing replaces it). */
const FINAL_TASK_STATES = new Set(['complete', 'failed', 'rejected', 'orphaned', 'remove']);

/** The fields of a Swarm task the backend reads. */
export interface SwarmTask {
  ID: string;
  ServiceID: string;
  NodeID?: string;
  CreatedAt?: string;
  DesiredState?: string;
  Version?: { Index?: number };
  Status?: {
    State?: string;
    Message?: string;
    Err?: string;
    ContainerStatus?: { ExitCode?: number };
    PortStatus?: { Ports?: Docker.PortConfig[] };
  };
}

/** The fields of a Swarm node the backend reads. */
export interface SwarmNode {
  ID: string;
  Description?: { Hostname?: string };
  Status?: { Addr?: string };
}

/** Options of {@link swarmTaskSession}. */
export interface SwarmTaskSessionOptions {
  /** The engine client (for dialling a wildcard address). */
  docker: Docker;
  service: Docker.Service;
  /** The service's newest task, if it has one. */
  task: SwarmTask | undefined;
  /** The swarm's nodes by id. */
  nodes: Map<string, SwarmNode>;
  /** Address a node's published ports are reached at, by node id or hostname. */
  nodeAddresses: Record<string, string>;
}

/**
 * The engine's view of a session from its service and newest task: scaled to 0 is paused; a
 * task being scheduled, started or replaced is pending; a running task is running at its node's
 * address and host port; any other task state ended it for good (restart `none`).
 */
export function swarmTaskSession({
  docker,
  service,
  task,
  nodes,
  nodeAddresses,
}: SwarmTaskSessionOptions): BackendSession {
  const labels = ownLabels(service.Spec?.Labels);
  if (service.Spec?.Mode?.Replicated?.Replicas === 0) {
    return { labels, status: 'paused', engineState: 'pending' };
  }
  const state = task?.Status?.State ?? 'new';
  // The swarm shuts a task down (scale, update, drain) and starts its replacement.
  const replaced = task?.DesiredState === 'shutdown' && !FINAL_TASK_STATES.has(state);
  if (replaced || PENDING_TASK_STATES.has(state)) {
    // e.g. `no suitable node (insufficient resources on 3 nodes)` while pending.
    const message = replaced ? undefined : task?.Status?.Err;
    return { labels, status: 'running', engineState: 'pending', ...(message && { message }) };
  }
  if (state === 'running') {
    const url = taskUrl({ docker, task, nodes, nodeAddresses });
    return { labels, status: 'running', engineState: 'running', url };
  }
  const reason = task?.Status?.Err || task?.Status?.Message || 'no reason given';
  const exitCode = task?.Status?.ContainerStatus?.ExitCode;
  const code = exitCode === undefined ? '' : ` (exit code ${exitCode})`;
  return {
    labels,
    status: 'stopped',
    engineState: 'failed',
    message: `task ${state}: ${reason}${code}`,
  };
}

/** `http://<node address>:<host port>` of a running task's agent-server. */
function taskUrl({
  docker,
  task,
  nodes,
  nodeAddresses,
}: Omit<SwarmTaskSessionOptions, 'service'>): string | undefined {
  const port = task?.Status?.PortStatus?.Ports?.find(
    (entry) => entry.TargetPort === AGENT_SERVER_PORT && entry.PublishedPort,
  )?.PublishedPort;
  if (!task?.NodeID || !port) return undefined;
  const node = nodes.get(task.NodeID);
  const hostname = node?.Description?.Hostname;
  const address =
    nodeAddresses[task.NodeID] ??
    (hostname === undefined ? undefined : nodeAddresses[hostname]) ??
    node?.Status?.Addr;
  return `http://${dialAddress(docker, address)}:${port}`;
}

/** Orders tasks by creation time, then by the store's version. */
export function compareTasks(a: SwarmTask, b: SwarmTask): number {
  const time = (task: SwarmTask) => Date.parse(task.CreatedAt ?? '') || 0;
  return time(a) - time(b) || (a.Version?.Index ?? 0) - (b.Version?.Index ?? 0);
}
