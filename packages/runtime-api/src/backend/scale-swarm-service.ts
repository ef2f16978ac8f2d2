import type Docker from 'dockerode';
import { engineCall } from './engine-call.js';
import type { FoundService } from './find-swarm-services.js';
import { untilServiceTasksGone } from './until-service-tasks-gone.js';

/** Tries of a service update that races another one (`update out of sequence`). */
const UPDATE_ATTEMPTS = 5;

/**
 * Scales a session's service to `replicas`, pinning it to its task's node first when pausing
 * (where its volume is). With restart `none` the swarm counts a slot whose task ended as taken,
 * so a new task starts only once the old one is gone: pausing waits until it is, and so does
 * resuming (bounded). An update that races another one reads the service (`current`) again.
 */
export async function scaleSwarmService(options: {
  docker: Docker;
  replicas: 0 | 1;
  /** The service as it is now, with its newest task. */
  current: () => Promise<FoundService>;
  signal: AbortSignal | undefined;
}): Promise<void> {
  const { docker, replicas, signal } = options;
  let serviceId: string;
  for (let attempt = 1; ; attempt++) {
    const { service, task } = await options.current();
    serviceId = service.ID;
    const spec = service.Spec ?? {};
    if ((spec.Mode?.Replicated?.Replicas ?? 1) === replicas) break;
    if (replicas === 1) await untilServiceTasksGone({ docker, serviceId: service.ID, signal });
    const template = (spec.TaskTemplate ?? {}) as Docker.ContainerTaskSpec;
    const constraints = template.Placement?.Constraints ?? [];
    const pin = replicas === 0 && task?.NodeID ? [`node.id==${task.NodeID}`] : [];
    const update: Docker.ServiceSpec = {
      ...spec,
      TaskTemplate: {
        ...template,
        Placement: { ...template.Placement, Constraints: [...new Set([...constraints, ...pin])] },
      },
      Mode: { Replicated: { Replicas: replicas } },
    };
    const action = `scale service ${service.ID} to ${replicas}`;
    try {
      await engineCall({ docker, action, signal }, () =>
        docker.getService(service.ID).update({
          _query: { version: service.Version?.Index },
          _body: update,
          abortSignal: signal,
        }),
      );
      break;
    } catch (error) {
      // Another update came first: read the service again.
      const raced = /out of sequence/i.test((error as Error).message);
      if (!raced || attempt >= UPDATE_ATTEMPTS) throw error;
    }
  }
  if (replicas === 0) await untilServiceTasksGone({ docker, serviceId, signal });
}
