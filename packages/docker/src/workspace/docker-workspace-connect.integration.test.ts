/**
 * The `connect` option on a real engine: on this local Linux engine `'auto'` reaches the
 * container at its bridge address with no port published; `'published-port'` (and `'auto'`
 * with a publishAddress that is not loopback, or a key the caller chose) publishes on the host
 * as before.
 */
import { afterAll, expect, it } from 'vitest';
import { DockerWorkspace } from './docker-workspace.js';
import { dockerTestContext } from './test-support/docker-test-context.js';

const context = dockerTestContext();
afterAll(() => context.removeAll());

context.describe('DockerWorkspace connect', () => {
  it("auto: reaches the agent-server at the container's address, publishing no host port", async () => {
    await using workspace = await DockerWorkspace.create({
      image: context.image,
      labels: context.labels,
      extraPorts: [5173],
      reapOrphans: false,
    });
    expect(workspace.connection).toBe('bridge');
    const info = await context.docker.getContainer(workspace.containerId!).inspect();
    const address = info.NetworkSettings.Networks.bridge!.IPAddress;
    expect(address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(workspace.host).toBe(`http://${address}:8000`);
    expect(workspace.publishedPort(5173).url).toBe(`http://${address}:5173`);
    // Nothing is bound on the host: no port bindings asked for, none made.
    expect(Object.keys(info.HostConfig.PortBindings ?? {})).toEqual([]);
    expect(
      Object.values(info.NetworkSettings.Ports ?? {}).filter((bindings) => bindings?.length),
    ).toEqual([]);
    expect((await workspace.executeCommand('echo hi')).stdout).toBe('hi\n');
    // A pause keeps the container's address: the same endpoint answers after resume.
    await workspace.pause();
    await workspace.resume();
    expect(workspace.host).toBe(`http://${address}:8000`);
    expect((await workspace.executeCommand('echo again')).stdout).toBe('again\n');
  });

  it("published-port: publishes on 127.0.0.1 and is reached there, as before 'auto'", async () => {
    await using workspace = await DockerWorkspace.create({
      image: context.image,
      labels: context.labels,
      connect: 'published-port',
      reapOrphans: false,
    });
    expect(workspace.connection).toBe('published-port');
    const info = await context.docker.getContainer(workspace.containerId!).inspect();
    const binding = info.NetworkSettings.Ports['8000/tcp']?.[0];
    expect(binding?.HostIp).toBe('127.0.0.1');
    expect(workspace.host).toBe(`http://127.0.0.1:${binding?.HostPort}`);
    expect((await workspace.executeCommand('echo hi')).stdout).toBe('hi\n');
  });

  it('auto publishes when publishAddress is not a loopback address', async () => {
    // The bridge's gateway: an address of this host that only it and its containers reach.
    const network = await context.docker.getNetwork('bridge').inspect();
    const gateway = network.IPAM?.Config?.[0]?.Gateway as string;
    await using workspace = await DockerWorkspace.create({
      image: context.image,
      labels: context.labels,
      publishAddress: gateway,
      reapOrphans: false,
    });
    expect(workspace.connection).toBe('published-port');
    expect(workspace.publishedPort(8000).host).toBe(gateway);
    expect((await workspace.executeCommand('true')).exitCode).toBe(0);
  });

  it('auto publishes when the caller chooses the session key', async () => {
    await using workspace = await DockerWorkspace.create({
      image: context.image,
      labels: context.labels,
      sessionApiKey: 'a-key-this-caller-may-give-other-containers',
      reapOrphans: false,
    });
    expect(workspace.connection).toBe('published-port');
    expect(workspace.host).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await workspace.executeCommand('true')).exitCode).toBe(0);
  });

  it('bridge on a user-defined network: reached at its address there', async () => {
    const name = `agent-workspace-test-${context.labels['dev.agent-workspace.test-run']!.slice(0, 8)}`;
    const network = await context.docker.createNetwork({ Name: name, Labels: context.labels });
    try {
      await using workspace = await DockerWorkspace.create({
        image: context.image,
        labels: context.labels,
        network: name,
        connect: 'bridge',
        reapOrphans: false,
      });
      const info = await context.docker.getContainer(workspace.containerId!).inspect();
      expect(workspace.host).toBe(`http://${info.NetworkSettings.Networks[name]!.IPAddress}:8000`);
      expect((await workspace.executeCommand('true')).exitCode).toBe(0);
    } finally {
      await network.remove();
    }
  });
});
