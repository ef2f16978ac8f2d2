/**
 * The Runtime API flow end to end on this machine: a Runtime API server on loopback whose
 * sessions are containers of the local Docker engine, and a `RemoteAPIWorkspace` provisioned
 * through it. The runtime key only ever goes to the Runtime API; the session key it hands out
 * only to the agent-server in the sandbox.
 *
 * Needs a running Docker engine. The image defaults to the offline build; set
 * AGENT_WORKSPACE_DOCKER_IMAGE to use another agent-server image.
 *
 * Run: pnpm --filter @agent-workspace/example-runtime-api start
 */
import { randomBytes } from 'node:crypto';
import { resolveAgentServerImage } from '@agent-workspace/docker';
import { RemoteAPIWorkspace } from '@agent-workspace/remote-api';
import { createRuntimeApiServer, DockerRuntimeBackend } from '@agent-workspace/runtime-api';

const image = process.env.AGENT_WORKSPACE_DOCKER_IMAGE ?? (await resolveAgentServerImage());
const runtimeApiKey = randomBytes(32).toString('hex');
await using server = await createRuntimeApiServer({
  apiKeys: [runtimeApiKey],
  // Session keys are derived from this secret; the same secret after a restart gives the same keys.
  sessionKeySecret: randomBytes(32).toString('hex'),
  backend: new DockerRuntimeBackend({ namespace: 'example' }),
  images: [image],
  port: 0,
  logLevel: 'warn',
});
console.log(`1. Runtime API on ${server.url} (docker backend)`);

const started = performance.now();
const workspace = await RemoteAPIWorkspace.create({
  runtimeApiUrl: server.url,
  runtimeApiKey,
  image,
  resourceFactor: 1,
  keepAlive: true,
});
const hello = await workspace.executeCommand('echo "$(id -u) in $(pwd)" && echo hi > note.txt');
console.log(
  `2. session ${workspace.sessionId} ready in ${Math.round(performance.now() - started)} ms: ${hello.stdout.trim()}`,
);

// keepAlive: closing leaves the session running, so another client can attach by its id.
await workspace.close();
await using attached = await RemoteAPIWorkspace.create({
  runtimeApiUrl: server.url,
  runtimeApiKey,
  image,
  sessionId: workspace.sessionId,
});
console.log(
  `3. attached: note.txt says ${(await attached.executeCommand('cat note.txt')).stdout.trim()}`,
);

await attached.pause();
await attached.resume();
console.log(
  `4. paused and resumed: ${(await attached.executeCommand('echo alive')).stdout.trim()}`,
);
// Closing the attached workspace (no keepAlive) stops the session.
await attached.close();
const sessions = await fetch(`${server.url}/sessions`, { headers: { 'X-API-Key': runtimeApiKey } });
const { sessions: left } = (await sessions.json()) as { sessions: unknown[] };
console.log(`5. closed: the session is stopped, ${left.length} sessions left`);
