import { RemoteWorkspace } from '@agent-workspace/core';
import { FREEZE_ATTEMPTS } from '@agent-workspace/docker/engine';
import { expect, test } from 'vitest';
import { EngineProxy } from '../server/test-support/engine-proxy.js';
import { describeRuntimeBackendSuite } from '../test-support/describe-runtime-backend-suite.js';
import { expectWorkspaceError } from '../test-support/expect-workspace-error.js';
import { remoteApiTestContext } from '../test-support/remote-api-test-context.js';
import { testSession } from '../test-support/test-session.js';
import { DockerRuntimeBackend } from './docker-runtime-backend.js';
import { pauseMarkerName } from './pause-markers.js';
import { sessionContainerName } from './session-container-name.js';
import { RUNTIME_LABELS } from './session-labels.js';

const context = remoteApiTestContext();
const { docker, image, namespace } = context;
const MEMORY_BYTES = 512 * 1024 ** 2;

describeRuntimeBackendSuite({
  name: 'DockerRuntimeBackend on a real engine',
  context,
  newBackend: (options) => new DockerRuntimeBackend(options),
  sandbox: 'container',
  objectName: sessionContainerName,
  resources: { memoryBytes: MEMORY_BYTES, cpus: 0.5, pidsLimit: 256 },
  startsRunning: true,
  race: { rival: new DockerRuntimeBackend({ namespace }) },
  exitMessage: 'exited with code 1',
  removes: 'the container',
  removedObjects: ({ objectName }) => [docker.getContainer(objectName)],
  cases: (suite) => {
    const { backend, spec, key, objectName } = suite;

    test('publishes on loopback only, with the limits, the labels and only the key hash', async () => {
      const info = await docker.getContainer(objectName).inspect();
      expect(info.Config.Labels).toMatchObject(spec.labels);
      expect(info.Config.Env).toContain(`SESSION_API_KEY_SHA256=${spec.sessionKeyHash}`);
      expect(info.Config.Env.join('\n')).not.toContain(key);
      expect(info.HostConfig).toMatchObject({
        Init: true,
        Memory: MEMORY_BYTES,
        MemorySwap: MEMORY_BYTES,
        NanoCpus: 500_000_000,
        PidsLimit: 256,
        PortBindings: { '8000/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] },
      });
      expect(info.NetworkSettings.Ports['8000/tcp']?.[0]?.HostIp).toBe('127.0.0.1');
    });

    test('pause freezes the sandbox, resume thaws it; files and URL stay; both are idempotent', async () => {
      const { url } = suite.running;
      const workspace = new RemoteWorkspace({
        host: url!,
        workingDir: '/workspace',
        apiKey: key,
      });
      try {
        const written = await workspace.executeCommand('echo kept > kept.txt');
        expect(written.exitCode).toBe(0);

        const paused = await backend.pause(spec.runtimeId);
        expect(paused).toMatchObject({ status: 'paused', url });
        expect((await docker.getContainer(objectName).inspect()).State.Paused).toBe(true);
        expect(await backend.pause(spec.runtimeId)).toMatchObject({ status: 'paused' });
        expect(await backend.get(spec.sessionId)).toMatchObject({ status: 'paused' });

        const resumed = await backend.resume(spec.runtimeId);
        expect(resumed).toMatchObject({ status: 'running', engineState: 'running', url });
        expect(await backend.resume(spec.runtimeId)).toMatchObject({ status: 'running' });
        const read = await workspace.executeCommand('cat kept.txt');
        expect(read.stdout.trim()).toBe('kept');
      } finally {
        await workspace.close();
      }
    });

    test('pause and snapshot try a freeze the runtime gave up on again; pause answers the last failure', async () => {
      // The engine's failure to freeze is a kernel race no test can cause on demand: a proxy in
      // front of the real engine answers it, and passes every other call on.
      const proxy = await EngineProxy.start();
      try {
        const viaProxy = new DockerRuntimeBackend({
          namespace,
          dockerOptions: { host: '127.0.0.1', port: proxy.port },
        });
        proxy.failFreezes(FREEZE_ATTEMPTS - 1);
        expect(await viaProxy.pause(spec.runtimeId)).toMatchObject({ status: 'paused' });
        expect(proxy.failedFreezes).toBe(FREEZE_ATTEMPTS - 1);
        expect((await docker.getContainer(objectName).inspect()).State.Paused).toBe(true);
        expect(await viaProxy.resume(spec.runtimeId)).toMatchObject({ status: 'running' });

        proxy.failFreezes(FREEZE_ATTEMPTS);
        const error = await expectWorkspaceError(
          viaProxy.pause(spec.runtimeId),
          'PROVISIONING_ERROR',
        );
        expect(error.message).toContain('unable to freeze');
        expect(proxy.failedFreezes).toBe(2 * FREEZE_ATTEMPTS - 1);
        // Still running, and without the pause record the failed pause made first.
        expect((await docker.getContainer(objectName).inspect()).State.Paused).toBe(false);
        await expect(docker.getVolume(pauseMarkerName(spec.runtimeId)).inspect()).rejects.toThrow(
          /no such volume/i,
        );
        expect(await backend.get(spec.sessionId)).toMatchObject({ status: 'running' });

        // `docker commit --pause` freezes the container too.
        proxy.failFreezes(1);
        const snapshot = await viaProxy.snapshots.take(spec.runtimeId);
        expect(proxy.failedFreezes).toBe(2 * FREEZE_ATTEMPTS);
        expect(await viaProxy.snapshots.remove(snapshot.snapshotId)).toBe(true);
      } finally {
        await proxy.close();
      }
    });

    test('a missing image is PROVISIONING_ERROR saying how to build it, and leaves nothing', async () => {
      const missing = testSession({ namespace, image: 'agent-workspace/agent-server:no-such-tag' });
      const error = await expectWorkspaceError(backend.start(missing.spec), 'PROVISIONING_ERROR');
      expect(error.message).toMatch(
        /no image agent-workspace\/agent-server:no-such-tag.*build-image/,
      );
      expect(await backend.get(missing.spec.sessionId)).toBeUndefined();
    });

    test('labels that do not name this namespace and session are INVALID_ARGUMENT', async () => {
      const foreign = testSession({ namespace: `${namespace}-other`, image });
      const error = await expectWorkspaceError(backend.start(foreign.spec), 'INVALID_ARGUMENT');
      expect(error.message).toContain(RUNTIME_LABELS.namespace);
    });
  },
});
