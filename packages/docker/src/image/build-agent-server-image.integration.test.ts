import { randomUUID } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkspaceError } from '@agent-workspace/core';
import Docker from 'dockerode';
import { execa } from 'execa';
import { pack } from 'tar-fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireDockerEngine } from '../testing/require-docker-engine.js';
import { buildAgentServerImage } from './build-agent-server-image.js';
import { buildBaseImage } from './build-base-image.js';
import type { BuiltImage, ImageProgressEvent } from './image-progress.js';
import { resolveAgentServerPackage } from './resolve-agent-server-package.js';
import { removeImageTree } from './test-support/remove-image-tree.js';
import { runInImage } from './test-support/run-in-image.js';

const nonce = randomUUID().slice(0, 8);

/** A copy of the agent-server package whose bundle is unique to this run, in its own git repo. */
async function copyAgentServerPackage(): Promise<{ dir: string; revision: string }> {
  const source = await resolveAgentServerPackage();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'agent-server-source-'));
  await cp(source.dockerfilePath, path.join(dir, 'Dockerfile'));
  await cp(path.join(source.dir, 'package.json'), path.join(dir, 'package.json'));
  await mkdir(path.join(dir, 'dist'));
  await cp(source.bundleDir, path.join(dir, 'dist/bundle'), { recursive: true });
  await writeFile(path.join(dir, 'dist/bundle/test-nonce.txt'), nonce);
  const git = (...args: string[]) =>
    execa('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], {
      cwd: dir,
    });
  await git('init', '--quiet');
  await git('add', '.');
  await git('commit', '--quiet', '-m', 'test');
  return { dir, revision: (await git('rev-parse', 'HEAD')).stdout };
}

/** Records progress events. */
function recorder(): { events: ImageProgressEvent[]; onProgress: (e: ImageProgressEvent) => void } {
  const events: ImageProgressEvent[] = [];
  return { events, onProgress: (event) => events.push(event) };
}

const dockerAvailable = await requireDockerEngine('agent-server image tests');

describe.skipIf(!dockerAvailable)('buildAgentServerImage', () => {
  const docker = new Docker();
  const images: string[] = [];
  const containers: Docker.Container[] = [];
  let baseImage: string;
  let source: { dir: string; revision: string };
  let built: BuiltImage;

  beforeAll(async () => {
    baseImage = (await buildBaseImage({ docker })).tag;
    source = await copyAgentServerPackage();
    const { events, onProgress } = recorder();
    built = await buildAgentServerImage({
      docker,
      baseImage,
      agentServerDir: source.dir,
      onProgress,
    });
    images.push(built.contentTag);
    expect(built.cached).toBe(false);
    expect(events.some((e) => e.type === 'step' && /^Step \d+\/\d+ : COPY /.test(e.message))).toBe(
      true,
    );
  });
  afterEach(async () => {
    await Promise.all(containers.splice(0).map((each) => each.remove({ force: true })));
  });
  afterAll(async () => {
    for (const image of images) await removeImageTree(docker, image);
    if (source) await rm(source.dir, { recursive: true, force: true });
  });

  it('tags the image by content hash and reuses it without building on a second call', async () => {
    expect(built.tag).toMatch(/^agent-workspace\/agent-server:[0-9a-f]{12}$/);
    expect(built.tag).toBe(built.contentTag);
    const { events, onProgress } = recorder();
    const again = await buildAgentServerImage({
      docker,
      baseImage,
      agentServerDir: source.dir,
      onProgress,
    });
    expect(again).toEqual({ ...built, cached: true });
    expect(events.map((event) => event.type)).toEqual(['cached', 'done']);
  });

  it('gives the cached image an extra name when asked', async () => {
    const extra = `agent-workspace-test/agent-server:${nonce}`;
    images.push(extra);
    const named = await buildAgentServerImage({
      docker,
      baseImage,
      agentServerDir: source.dir,
      tag: extra,
    });
    expect(named).toMatchObject({ tag: extra, contentTag: built.contentTag, cached: true });
    expect((await docker.getImage(extra).inspect()).Id).toBe(built.imageId);
  });

  it('labels the image with the package version and git revision', async () => {
    const { version } = JSON.parse(await readFile(path.join(source.dir, 'package.json'), 'utf8'));
    const { Config } = await docker.getImage(built.tag).inspect();
    expect(Config.Labels).toMatchObject({
      'org.opencontainers.image.version': version,
      'org.opencontainers.image.revision': source.revision,
    });
    expect(Config.Env).toContain(`AGENT_SERVER_BUILD_GIT_SHA=${source.revision}`);
  });

  it('runs as uid 10001 in /workspace with bash, git, node and tini', async () => {
    const { exitCode, output } = await runInImage(
      docker,
      built.tag,
      'id -u; id -g; pwd; stat -c %u /workspace; for tool in bash git node tini; do command -v "$tool"; done; node --version',
    );
    expect(exitCode).toBe(0);
    expect(output.trim().split('\n')).toEqual([
      '10001',
      '10001',
      '/workspace',
      '10001',
      '/usr/bin/bash',
      '/usr/bin/git',
      '/usr/local/bin/node',
      '/usr/bin/tini',
      process.version,
    ]);
  });

  it('serves /health on port 8000 and passes its HEALTHCHECK', async () => {
    const container = await docker.createContainer({
      Image: built.tag,
      Labels: { 'agent-workspace.test': 'image' },
      HostConfig: { PortBindings: { '8000/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] } },
    });
    containers.push(container);
    await container.start();
    const port = (await container.inspect()).NetworkSettings.Ports['8000/tcp']?.[0]?.HostPort;
    let body: unknown;
    for (let attempt = 0; attempt < 300 && body === undefined; attempt += 1) {
      // Bounded: docker's port proxy may hold a connection the server is not yet listening for.
      body = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2_000) })
        .then((response) => (response.ok ? response.json() : undefined))
        .catch(() => sleep(100).then(() => undefined));
    }
    expect(body).toEqual({ status: 'ok' });
    let health: string | undefined;
    for (let attempt = 0; attempt < 120 && health !== 'healthy'; attempt += 1) {
      health = (await container.inspect()).State.Health?.Status;
      if (health !== 'healthy') await sleep(500);
    }
    expect(health).toBe('healthy');
  });

  it('fails with a typed error carrying the build log when a step fails', async () => {
    // A base with no shell: the first RUN step cannot start.
    const rootDir = await mkdtemp(path.join(os.tmpdir(), 'no-shell-'));
    const noShell = `agent-workspace-test/no-shell:${nonce}`;
    images.push(noShell);
    try {
      await writeFile(path.join(rootDir, 'hello.txt'), 'hello\n');
      const stream = await docker.importImage(pack(rootDir), {
        repo: 'agent-workspace-test/no-shell',
        tag: nonce,
      });
      await new Promise((resolve, reject) =>
        docker.modem.followProgress(stream, (error) => (error ? reject(error) : resolve(null))),
      );
    } finally {
      await rm(rootDir, { recursive: true, force: true });
    }
    const error = await buildAgentServerImage({
      docker,
      baseImage: noShell,
      agentServerDir: source.dir,
    }).catch((caught) => caught);
    expect(WorkspaceError.isInstance(error, 'PROVISIONING_ERROR')).toBe(true);
    const { message, details } = error as WorkspaceError;
    expect(message).toContain('agent-server image build');
    expect(message).toContain('--- last output ---');
    expect(message).toMatch(/Step \d+\/\d+ : RUN /);
    expect(details.log).toEqual(expect.arrayContaining([expect.stringMatching(/: FROM /)]));
    // forcerm: the failed step's container is gone too.
    const left = await docker.listContainers({ all: true, filters: { ancestor: [noShell] } });
    expect(left).toEqual([]);
  });

  it('fails with a typed error pointing to the offline base when the base cannot be pulled', async () => {
    const error = await buildAgentServerImage({
      docker,
      baseImage: `agent-workspace-test/missing-base:${nonce}`,
      agentServerDir: source.dir,
    }).catch((caught) => caught);
    expect(WorkspaceError.isInstance(error, 'PROVISIONING_ERROR')).toBe(true);
    expect((error as Error).message).toContain('missing-base');
    expect((error as Error).message).toContain('build-base-image');
  });
});
