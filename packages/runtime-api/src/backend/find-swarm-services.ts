import type Docker from 'dockerode';
import { engineCall, labelFilter } from './engine-call.js';
import { compareTasks, type SwarmTask } from './swarm-task-session.js';

/** A session's service with its newest task. */
export interface FoundService {
  service: Docker.Service;
  task: SwarmTask | undefined;
}

/**
 * The services with `labels`, each with its newest task. Tasks filter on their service's
 * labels: one call each, and no service can vanish between them.
 */
export async function findSwarmServices(options: {
  docker: Docker;
  labels: Record<string, string>;
  signal: AbortSignal | undefined;
}): Promise<FoundService[]> {
  const { docker, signal } = options;
  const filters = { label: labelFilter(options.labels) };
  const [services, tasks] = await Promise.all([
    engineCall({ docker, action: 'list services', signal }, () =>
      docker.listServices({ filters, abortSignal: signal }),
    ),
    engineCall({ docker, action: 'list tasks', signal }, () =>
      docker.listTasks({ filters, abortSignal: signal }),
    ) as Promise<SwarmTask[]>,
  ]);
  const newest = new Map<string, SwarmTask>();
  for (const task of tasks) {
    const current = newest.get(task.ServiceID);
    if (!current || compareTasks(task, current) > 0) newest.set(task.ServiceID, task);
  }
  return services.map((service) => ({ service, task: newest.get(service.ID) }));
}
