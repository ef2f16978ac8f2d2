import { AGENT_SERVER_PORT, containerEnvironment } from '@agent-workspace/docker/engine';
import type Docker from 'dockerode';
import type { SessionSpec } from './runtime-backend.js';
import type { SessionVolume } from './session-volumes.js';

/** Options of {@link swarmServiceSpec}. */
export interface SwarmServiceSpecOptions {
  spec: SessionSpec;
  /** The service name (`sessionObjectName`). */
  name: string;
  /** Overlay network the task joins, if any. */
  network?: string | undefined;
  /** Placement constraints of the task. */
  constraints: readonly string[];
  /** Reserve CPU and memory as well as limiting them, so the scheduler spreads sessions. */
  reserve: boolean;
}

/**
 * The Swarm service of a new session: one replica never restarted, the session's labels on the
 * service, its container and its volume, only the key's SHA-256 in the environment, the working
 * directory on a named volume (files survive a pause), the session's {@link SessionSpec.volumes}
 * after it, limits (and reservations), and the agent-server port published in host mode on a
 * port the engine picks.
 */
export function swarmServiceSpec({
  spec,
  name,
  network,
  constraints,
  reserve,
}: SwarmServiceSpecOptions): Docker.ServiceSpec {
  const { memoryBytes, cpus, pidsLimit } = spec.resources;
  const nanoCpus = cpus === undefined ? undefined : Math.round(cpus * 1e9);
  return {
    Name: name,
    Labels: spec.labels,
    TaskTemplate: {
      ContainerSpec: {
        Image: spec.image,
        Labels: spec.labels,
        Env: containerEnvironment({
          options: { env: spec.environment },
          environment: {},
          apiKeySha256: spec.sessionKeyHash,
        }),
        ...(spec.workingDir && { Dir: spec.workingDir }),
        ...(spec.runAsUser !== undefined && { User: String(spec.runAsUser) }),
        Init: true,
        Mounts: [
          {
            Type: 'volume',
            // The runtime id keeps a leftover volume of an earlier run of the session out.
            Source: `${name}-${spec.runtimeId}-data`,
            Target: spec.workingDir ?? '/workspace',
            VolumeOptions: {
              // A new volume starts with the image's files (and their owner) at the target.
              NoCopy: false,
              Labels: spec.labels,
              DriverConfig: { Name: 'local', Options: {} },
            },
          },
          ...(spec.volumes ?? []).map(volumeMount),
        ],
      },
      Resources: {
        Limits: { NanoCPUs: nanoCpus, MemoryBytes: memoryBytes, Pids: pidsLimit },
        ...(reserve && { Reservations: { NanoCPUs: nanoCpus, MemoryBytes: memoryBytes } }),
      },
      RestartPolicy: { Condition: 'none' },
      Placement: { Constraints: [...constraints] },
      ...(network && { Networks: [{ Target: network }] }),
    },
    Mode: { Replicated: { Replicas: 1 } },
    EndpointSpec: {
      Ports: [{ Protocol: 'tcp', TargetPort: AGENT_SERVER_PORT, PublishMode: 'host' }],
    },
  };
}

/**
 * The service mount of a session volume. A shared named volume missing on the task's node is
 * created there with its labels (never the session's: removing the session's volumes by runtime
 * id leaves it); one per node, like every local volume.
 */
function volumeMount(volume: SessionVolume): Docker.MountSettings {
  const mount = {
    Type: volume.type,
    Source: volume.source,
    Target: volume.target,
    ReadOnly: volume.readOnly,
  };
  if (volume.type === 'bind') return mount;
  return {
    ...mount,
    VolumeOptions: {
      NoCopy: false,
      Labels: volume.labels,
      DriverConfig: { Name: 'local', Options: {} },
    },
  };
}
