import { WorkspaceError } from '@agent-workspace/core';
import { dockerStatus } from '@agent-workspace/docker/engine';
import type Docker from 'dockerode';
import { delay, engineCall } from './engine-call.js';
import type { SwarmTask } from './swarm-task-session.js';

/** Bound on waiting for the swarm to shut down and delete a scaled-down service's task. */
const TASK_SHUTDOWN_TIMEOUT_MS = 60_000;

/** Options of {@link untilServiceTasksGone}. */
export interface UntilServiceTasksGoneOptions {
  docker: Docker;
  serviceId: string;
  signal?: AbortSignal | undefined;
}

/**
 * Waits (bounded) until the swarm has deleted every task of a service scaled to 0: with restart
 * `none` a slot whose task ended counts as taken, so a new task starts only after that. A removed
 * service has no tasks. Past the bound, `PROVISIONING_ERROR` naming the task and its node.
 */
export async function untilServiceTasksGone({
  docker,
  serviceId,
  signal,
}: UntilServiceTasksGoneOptions): Promise<void> {
  const deadline = Date.now() + TASK_SHUTDOWN_TIMEOUT_MS;
  for (;;) {
    const tasks = (await engineCall(
      { docker, action: `list the tasks of ${serviceId}`, signal },
      () =>
        docker
          .listTasks({ filters: { service: [serviceId] }, abortSignal: signal })
          .catch((error) => {
            if (dockerStatus(error) === 404) return [];
            throw error;
          }),
    )) as SwarmTask[];
    const [task] = tasks;
    if (!task) return;
    if (Date.now() >= deadline) {
      throw new WorkspaceError({
        code: 'PROVISIONING_ERROR',
        message: `task ${task.ID} of service ${serviceId} is still ${task.Status?.State} ${TASK_SHUTDOWN_TIMEOUT_MS / 1000} s after the service was scaled to 0 (is node ${task.NodeID} down?); try again later`,
        details: { serviceId, taskId: task.ID, nodeId: task.NodeID },
      });
    }
    await delay(250, signal);
  }
}
