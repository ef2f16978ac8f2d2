import { randomBytes } from 'node:crypto';
import { DockerWorkspace, resolveAgentServerImage } from '@agent-workspace/docker';
import { RemoteAPIWorkspace } from '@agent-workspace/remote-api';
import {
  createRuntimeApiServer,
  DockerRuntimeBackend,
  type RuntimeApiServer,
  type RuntimeBackend,
  SwarmRuntimeBackend,
} from '@agent-workspace/runtime-api';
import Docker from 'dockerode';
import { type Comparison, comparisonOf, summarise } from './bench-harness.js';

const RUNS = 6;

/** A Runtime API server on loopback over `backend`, with fresh keys. */
async function startServer(backend: RuntimeBackend, image: string) {
  const runtimeApiKey = randomBytes(32).toString('hex');
  const server = await createRuntimeApiServer({
    apiKeys: [runtimeApiKey],
    sessionKeySecret: randomBytes(32).toString('hex'),
    backend,
    images: [image],
    port: 0,
    logLevel: 'silent',
  });
  return { server, runtimeApiKey };
}

/** Milliseconds from `create` until a first command has returned, then closes. */
async function timeColdStart(create: () => Promise<DockerWorkspace | RemoteAPIWorkspace>) {
  const start = performance.now();
  const workspace = await create();
  try {
    const result = await workspace.executeCommand('true');
    if (result.exitCode !== 0) throw new Error(`first command failed: ${result.stderr}`);
    return performance.now() - start;
  } finally {
    await workspace.close();
  }
}

/**
 * The engine's own floor for a swarm sandbox: a bare one-replica service (restart none, port
 * 8000 in host mode) from `image`, until its agent-server answers `/health`; then removed.
 */
async function timeBareService(docker: Docker, image: string, run: number): Promise<number> {
  const start = performance.now();
  const service = await docker.createService({
    Name: `bench-bare-${process.pid}-${run}`,
    TaskTemplate: { ContainerSpec: { Image: image }, RestartPolicy: { Condition: 'none' } },
    EndpointSpec: { Ports: [{ Protocol: 'tcp', TargetPort: 8000, PublishMode: 'host' }] },
  });
  try {
    for (;;) {
      const [task] = (await docker.listTasks({ filters: { service: [service.id] } })) as {
        Status?: { State?: string; PortStatus?: { Ports?: { PublishedPort?: number }[] } };
      }[];
      const port = task?.Status?.PortStatus?.Ports?.[0]?.PublishedPort;
      if (task?.Status?.State === 'running' && port) {
        const answered = await fetch(`http://127.0.0.1:${port}/health`).then(
          (response) => response.ok,
          () => false,
        );
        if (answered) return performance.now() - start;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await service.remove();
  }
}

/**
 * Provisioning through the Runtime API (create → first command returns), on the Docker and the
 * Swarm backend, against `DockerWorkspace.create` and a bare swarm service, measured interleaved
 * in the same run. A swarm
 * is initialised for the run when the engine is in none, and left again.
 */
export async function benchRuntimeApi(): Promise<Comparison[]> {
  const image = await resolveAgentServerImage();
  const docker = new Docker();
  const swarmState = ((await docker.info()) as { Swarm?: { LocalNodeState?: string } }).Swarm
    ?.LocalNodeState;
  const initialisedSwarm = swarmState === 'inactive';
  if (initialisedSwarm) {
    await docker.swarmInit({ ListenAddr: '127.0.0.1:2377', AdvertiseAddr: '127.0.0.1' });
  }
  const namespace = `bench-${randomBytes(4).toString('hex')}`;
  const servers: RuntimeApiServer[] = [];
  try {
    const onDocker = await startServer(new DockerRuntimeBackend({ namespace }), image);
    const onSwarm = await startServer(new SwarmRuntimeBackend({ namespace }), image);
    servers.push(onDocker.server, onSwarm.server);
    const viaRuntimeApi = (target: typeof onDocker) => () =>
      RemoteAPIWorkspace.create({
        runtimeApiUrl: target.server.url,
        runtimeApiKey: target.runtimeApiKey,
        image,
      });
    const direct: number[] = [];
    const dockerBackend: number[] = [];
    const swarmBackend: number[] = [];
    const bareService: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      bareService.push(await timeBareService(docker, image, run));
      direct.push(await timeColdStart(() => DockerWorkspace.create({ image, reapOrphans: false })));
      dockerBackend.push(await timeColdStart(viaRuntimeApi(onDocker)));
      swarmBackend.push(await timeColdStart(viaRuntimeApi(onSwarm)));
    }
    const baseline = summarise('DockerWorkspace.create → first command', direct);
    return [
      comparisonOf(
        'Runtime API provisioning, docker backend (create → first command)',
        baseline,
        summarise('RemoteAPIWorkspace.create (docker backend) → first command', dockerBackend),
        { notes: `${RUNS} interleaved runs each; image ${image}` },
      ),
      comparisonOf(
        'Runtime API provisioning, swarm backend (create → first command)',
        baseline,
        summarise('RemoteAPIWorkspace.create (swarm backend) → first command', swarmBackend),
        { notes: `single-node swarm, host-mode port; ${RUNS} interleaved runs each` },
      ),
      comparisonOf(
        'Runtime API provisioning, swarm backend against the engine floor',
        summarise('bare docker service create → /health answers', bareService),
        summarise('RemoteAPIWorkspace.create (swarm backend) → first command', swarmBackend),
        { notes: 'the floor is the swarm scheduling one task on this engine' },
      ),
    ];
  } finally {
    await Promise.all(servers.map((server) => server.close()));
    if (initialisedSwarm) await docker.swarmLeave({ force: true });
  }
}
