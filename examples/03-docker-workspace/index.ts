/**
 * A DockerWorkspace tour: an isolated container running the agent-server, published on
 * 127.0.0.1 only with a random session key, then commands, files, git, pause/resume and a
 * clean-up that leaves no container behind.
 *
 * Needs a running Docker engine. The image defaults to the offline build
 * (`agent-workspace-docker build-base-image` + `build-image`); set AGENT_WORKSPACE_DOCKER_IMAGE
 * to use another agent-server image.
 *
 * Run: pnpm --filter @agent-workspace/example-docker-workspace start
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DockerWorkspace, resolveAgentServerImage } from '@agent-workspace/docker';

const image = process.env.AGENT_WORKSPACE_DOCKER_IMAGE ?? (await resolveAgentServerImage());
const local = await mkdtemp(path.join(tmpdir(), 'docker-tour-'));
try {
  const started = performance.now();
  await using workspace = await DockerWorkspace.create({
    image,
    resources: { memoryBytes: 512 * 1024 * 1024, cpus: 1, pidsLimit: 256 },
  });
  const whoami = await workspace.executeCommand('echo "$(id -u) in $(pwd) on $(hostname)"');
  console.log(
    `1. started   in ${Math.round(performance.now() - started)} ms: ${whoami.stdout.trim()}`,
  );

  const slow = await workspace.executeCommand('echo started; sleep 60 & sleep 60', {
    timeoutMs: 500,
  });
  console.log(`2. timeout   timeoutOccurred=${slow.timeoutOccurred} exit=${slow.exitCode}`);

  await writeFile(path.join(local, 'in.txt'), 'into the container\n');
  await workspace.fileUpload(path.join(local, 'in.txt'), 'notes/in.txt');
  await workspace.fileDownload('notes/in.txt', path.join(local, 'out.txt'));
  console.log(
    `3. files     ${JSON.stringify((await readFile(path.join(local, 'out.txt'), 'utf8')).trim())}`,
  );

  await workspace.executeCommand(
    'git init -q repo && cd repo && git config user.email demo@example.com && git config user.name demo && echo a > a.txt && git add . && git commit -qm init && echo b >> a.txt && echo c > c.txt',
  );
  const changes = await workspace.gitChanges('repo');
  console.log(
    `4. git       ${changes.map((change) => `${change.status} ${change.path}`).join(', ')}`,
  );

  await workspace.pause();
  await workspace.resume();
  console.log(
    `5. paused and resumed: ${(await workspace.executeCommand('echo alive')).stdout.trim()}`,
  );
} finally {
  await rm(local, { recursive: true, force: true });
}
console.log('6. closed: the container is gone');
