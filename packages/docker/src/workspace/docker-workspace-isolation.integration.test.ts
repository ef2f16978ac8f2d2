/**
 * What a DockerWorkspace container gets and keeps to itself: isolation between parallel
 * workspaces, bind mounts (read-only enforced), named volumes, resource limits that take effect,
 * extra published ports, and the user option.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkspaceError } from '@agent-workspace/core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { DockerWorkspace } from './docker-workspace.js';
import type { DockerWorkspaceOptions } from './docker-workspace-options.js';
import { dockerTestContext } from './test-support/docker-test-context.js';

const context = dockerTestContext();
const workspaces: DockerWorkspace[] = [];
let hostDir: string;
const volume = `agent-workspace-test-${context.labels[Object.keys(context.labels)[0]!]}`;

beforeAll(async () => {
  hostDir = await mkdtemp(path.join(os.tmpdir(), 'docker-workspace-mount-'));
  // The agent-server runs as uid 10001.
  await chmod(hostDir, 0o777);
  await writeFile(path.join(hostDir, 'hello.txt'), 'from the host\n');
});
afterEach(async () => {
  await Promise.allSettled(workspaces.splice(0).map((workspace) => workspace.close()));
});
afterAll(async () => {
  await context.removeAll();
  if (!context.skipReason)
    await context.docker
      .getVolume(volume)
      .remove()
      .catch(() => {});
  await rm(hostDir, { recursive: true, force: true });
});

async function create(extra: Partial<DockerWorkspaceOptions> = {}): Promise<DockerWorkspace> {
  const workspace = await DockerWorkspace.create({
    image: context.image,
    ...extra,
    labels: context.labels,
  });
  workspaces.push(workspace);
  return workspace;
}

/** Runs `command` and returns its trimmed stdout, failing on a non-zero exit. */
async function output(workspace: DockerWorkspace, command: string): Promise<string> {
  const result = await workspace.executeCommand(command);
  expect(result.exitCode, `${command}: ${result.stderr}`).toBe(0);
  return result.stdout.trim();
}

/** A local engine shares this machine's file system; bind mounts need that. */
const remoteEngine = /^(tcp|ssh|https?):/.test(process.env.DOCKER_HOST ?? '');

context.describe('DockerWorkspace isolation and resources', () => {
  it('keeps two parallel workspaces apart: files, hostnames and session keys', async () => {
    const [first, second] = await Promise.all([create(), create()]);
    expect(first.containerId).not.toBe(second.containerId);
    expect(first.host).not.toBe(second.host);
    await output(first, 'echo mine > only-in-first.txt');
    expect((await second.executeCommand('test -e only-in-first.txt')).exitCode).toBe(1);
    expect(await output(first, 'cat only-in-first.txt')).toBe('mine');
    expect(await output(first, 'hostname')).not.toBe(await output(second, 'hostname'));

    const keys = await Promise.all(
      [first, second].map(async (workspace) => {
        const info = await context.docker.getContainer(workspace.containerId!).inspect();
        return info.Config.Env.find((entry) => entry.startsWith('SESSION_API_KEY='));
      }),
    );
    expect(keys[0]).not.toBe(keys[1]);
  });

  it.skipIf(remoteEngine)('shows bind mounts inside and enforces read-only', async () => {
    const workspace = await create({
      mounts: [
        { type: 'bind', source: hostDir, target: '/mnt/ro', readOnly: true },
        { type: 'bind', source: hostDir, target: '/mnt/rw' },
      ],
    });
    expect(await output(workspace, 'cat /mnt/ro/hello.txt')).toBe('from the host');
    const denied = await workspace.executeCommand('touch /mnt/ro/nope');
    expect(denied.exitCode).not.toBe(0);
    expect(denied.stderr).toContain('Read-only file system');
    await output(workspace, 'echo from the container > /mnt/rw/back.txt');
    expect(await readFile(path.join(hostDir, 'back.txt'), 'utf8')).toBe('from the container\n');
  });

  it('keeps a named volume across workspaces, running as the given user', async () => {
    const mounts = [{ type: 'volume' as const, source: volume, target: '/data' }];
    const writer = await create({ mounts, user: 'root' });
    expect(await output(writer, 'id -u')).toBe('0');
    await output(writer, 'echo persisted > /data/note.txt');
    await writer.close();
    const reader = await create({ mounts: [{ ...mounts[0]!, readOnly: true }] });
    expect(await output(reader, 'cat /data/note.txt')).toBe('persisted');
    const refused = await reader.executeCommand('echo overwritten > /data/note.txt');
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain('Read-only file system');
    expect(await output(reader, 'id -u')).toBe('10001');
  });

  it('applies memory, CPU and process limits', async () => {
    const memoryBytes = 256 * 1024 * 1024;
    const workspace = await create({ resources: { memoryBytes, cpus: 0.5, pidsLimit: 64 } });
    const read = (v2: string, v1: string) =>
      output(workspace, `cat /sys/fs/cgroup/${v2} 2>/dev/null || cat /sys/fs/cgroup/${v1}`);
    expect(await read('memory.max', 'memory/memory.limit_in_bytes')).toBe(String(memoryBytes));
    expect(await read('pids.max', 'pids/pids.max')).toBe('64');
    expect((await read('cpu.max', 'cpu/cpu.cfs_quota_us')).split(' ')[0]).toBe('50000');

    // More processes than the limit allows: fork fails (dash gives up at once, bash retries).
    const bomb = await workspace.executeCommand(
      "sh -c 'i=0; while [ $i -lt 100 ]; do sleep 60 & i=$((i+1)); done; echo all started'",
      { timeoutMs: 30_000 },
    );
    expect(bomb.stdout).not.toContain('all started');
    expect(bomb.stderr).toMatch(/fork/i);
  });

  it('publishes extraPorts on 127.0.0.1 and tells where', async () => {
    const workspace = await create({ extraPorts: [9000], connect: 'published-port' });
    const server =
      "require('node:http').createServer((q, r) => r.end('extra port')).listen(9000, '0.0.0.0')";
    await output(workspace, `nohup node -e "${server}" >/dev/null 2>&1 &`);
    const published = workspace.publishedPort(9000);
    expect(published.host).toBe('127.0.0.1');
    expect(published.port).not.toBe(workspace.publishedPort(8000).port);
    let body: string | undefined;
    for (let attempt = 0; attempt < 200 && body === undefined; attempt++) {
      body = await fetch(published.url)
        .then((response) => response.text())
        .catch(() => undefined);
      if (body === undefined) await sleep(50);
    }
    expect(body).toBe('extra port');
    expect(() => workspace.publishedPort(1234)).toThrow(WorkspaceError);
  });
});
