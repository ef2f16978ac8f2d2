import { RemoteWorkspace } from '@agent-workspace/core';
import { expect, test } from 'vitest';
import { waitUntilHealthy } from '../test-support/agent-server-probe.js';
import {
  describeRuntimeBackendSuite,
  type RuntimeBackendSuite,
} from '../test-support/describe-runtime-backend-suite.js';
import { remoteApiTestContext } from '../test-support/remote-api-test-context.js';
import { untilRunning } from '../test-support/until-running.js';
import { sessionObjectName } from './session-labels.js';
import { SwarmRuntimeBackend } from './swarm-runtime-backend.js';

const context = remoteApiTestContext();
const { docker, namespace } = context;
const MEMORY_BYTES = 512 * 1024 ** 2;

/** The fields of a Swarm task the tests read. */
interface TaskInfo {
  ID: string;
  NodeID: string;
  CreatedAt: string;
  Status: { ContainerStatus: { ContainerID: string } };
}

/** The swarm's tasks of service `name`, newest first. */
async function tasksOf(name: string): Promise<TaskInfo[]> {
  const tasks: TaskInfo[] = await docker.listTasks({ filters: { service: [name] } });
  return tasks.sort((a, b) => Date.parse(b.CreatedAt) - Date.parse(a.CreatedAt));
}

/** The volume of the main session's service. */
function volumeOf({ objectName, spec }: RuntimeBackendSuite): string {
  return `${objectName}-${spec.runtimeId}-data`;
}

describeRuntimeBackendSuite({
  name: 'SwarmRuntimeBackend on a real swarm',
  context,
  newBackend: (options) => new SwarmRuntimeBackend(options),
  sandbox: 'service',
  objectName: sessionObjectName,
  resources: { memoryBytes: MEMORY_BYTES, cpus: 0.5, pidsLimit: 256 },
  startsRunning: false,
  race: {
    // The rival reserves nothing: whichever wins, its service shows its own setting.
    rival: new SwarmRuntimeBackend({ namespace, reserveResources: false }),
    resources: { cpus: 0.25 },
    checkWinner: async (winner, sessionId) => {
      const service = await docker.getService(sessionObjectName(namespace, sessionId)).inspect();
      expect(service.Spec.TaskTemplate.Resources).toEqual({
        Limits: { NanoCPUs: 250_000_000 },
        ...(winner === 0 && { Reservations: { NanoCPUs: 250_000_000 } }),
      });
    },
  },
  exitMessage: /^task failed: .*non-zero exit.*\(exit code 1\)$/,
  removes: 'the service and its volume',
  removedObjects: (suite) => [
    docker.getService(suite.objectName),
    docker.getVolume(volumeOf(suite)),
  ],
  cases: (suite) => {
    const { backend, spec, key, objectName: serviceName } = suite;

    test('the service, its container and its volume carry the labels, the limits and only the key hash', async () => {
      const service = await docker.getService(serviceName).inspect();
      expect(service.Spec.Labels).toEqual(spec.labels);
      expect(service.Spec.Mode).toEqual({ Replicated: { Replicas: 1 } });
      const template = service.Spec.TaskTemplate;
      expect(template.RestartPolicy.Condition).toBe('none');
      expect(template.ContainerSpec.Labels).toEqual(spec.labels);
      expect(template.ContainerSpec.Env).toContain(`SESSION_API_KEY_SHA256=${spec.sessionKeyHash}`);
      expect(JSON.stringify(service)).not.toContain(key);
      expect(template.Resources).toEqual({
        Limits: { NanoCPUs: 500_000_000, MemoryBytes: MEMORY_BYTES, Pids: 256 },
        Reservations: { NanoCPUs: 500_000_000, MemoryBytes: MEMORY_BYTES },
      });
      expect(service.Endpoint.Ports).toEqual([
        expect.objectContaining({ TargetPort: 8000, PublishMode: 'host' }),
      ]);

      const [task] = await tasksOf(serviceName);
      const container = await docker
        .getContainer(task!.Status.ContainerStatus.ContainerID)
        .inspect();
      expect(container.Config.Labels).toMatchObject(spec.labels);
      expect(container.HostConfig).toMatchObject({
        Init: true,
        Memory: MEMORY_BYTES,
        NanoCpus: 500_000_000,
        PidsLimit: 256,
      });
      const volumeName = volumeOf(suite);
      const volume = await docker.getVolume(volumeName).inspect();
      expect(volume.Labels).toEqual(spec.labels);
      expect(container.Mounts).toEqual([
        expect.objectContaining({ Type: 'volume', Name: volumeName, Destination: '/workspace' }),
      ]);
    });

    test('nodeAddresses overrides the address of the node running the task', async () => {
      const [task] = await tasksOf(serviceName);
      const overriding = new SwarmRuntimeBackend({
        namespace,
        nodeAddresses: { [task!.NodeID]: 'sandbox-node.example' },
      });
      const port = new URL(suite.running.url!).port;
      expect((await overriding.get(spec.sessionId))?.url).toBe(
        `http://sandbox-node.example:${port}`,
      );
    });

    test('pause scales to 0 pinned to the node; resume answers on a new URL with the files kept', async () => {
      const before = new RemoteWorkspace({
        host: suite.running.url!,
        workingDir: '/workspace',
        apiKey: key,
      });
      try {
        expect((await before.executeCommand('echo kept > kept.txt')).exitCode).toBe(0);
      } finally {
        await before.close();
      }
      const [task] = await tasksOf(serviceName);

      const paused = await backend.pause(spec.runtimeId);
      expect(paused.status).toBe('paused');
      expect(paused.url).toBeUndefined();
      const pausedService = await docker.getService(serviceName).inspect();
      expect(pausedService.Spec.Mode.Replicated.Replicas).toBe(0);
      expect(pausedService.Spec.TaskTemplate.Placement.Constraints).toEqual([
        `node.id==${task!.NodeID}`,
      ]);
      // The swarm deleted the task: a resume can start a new one.
      expect(await tasksOf(serviceName)).toEqual([]);
      expect(await backend.pause(spec.runtimeId)).toMatchObject({ status: 'paused' });
      expect(await backend.get(spec.sessionId)).toMatchObject({ status: 'paused' });

      expect(await backend.resume(spec.runtimeId)).toMatchObject({ status: 'running' });
      const resumed = await untilRunning(backend, spec.runtimeId);
      expect(resumed.url).not.toBe(suite.running.url);
      expect(await backend.resume(spec.runtimeId)).toMatchObject({
        status: 'running',
        url: resumed.url,
      });
      await waitUntilHealthy(resumed.url!);
      const after = new RemoteWorkspace({
        host: resumed.url!,
        workingDir: '/workspace',
        apiKey: key,
      });
      try {
        expect((await after.executeCommand('cat kept.txt')).stdout.trim()).toBe('kept');
      } finally {
        await after.close();
      }
      expect((await tasksOf(serviceName))[0]!.ID).not.toBe(task!.ID);
    });
  },
});
