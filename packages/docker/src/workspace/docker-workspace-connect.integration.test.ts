/**
 * The `connect` option on a real engine: on this local Linux engine `'auto'` reaches the
 * container at its bridge address with no port published, also beside a key the caller chose
 * (the workspace sends its own); `'published-port'` (and `'auto'` with a publishAddress that is
 * not loopback) publishes on the host as before.
 */
import { afterAll, expect, it } from 'vitest';
import { defaultGateway } from './choose-connection.js';
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
    const subnet = network.IPAM?.Config?.[0];
    const gateway = (subnet?.Gateway || defaultGateway(subnet?.Subnet)) as string;
    expect(gateway).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
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

  it("auto uses the bridge with a caller's key, which opens the server but is never the workspace's", async () => {
    const callerKey = 'a-key-this-caller-may-give-other-containers';
    const options = {
      image: context.image,
      labels: context.labels,
      sessionApiKey: callerKey,
      reapOrphans: false,
    };
    await using first = await DockerWorkspace.create(options);
    await using second = await DockerWorkspace.create(options);
    expect([first.connection, second.connection]).toEqual(['bridge', 'bridge']);
    expect((await first.executeCommand('true')).exitCode).toBe(0);
    const ownKey = async (workspace: DockerWorkspace) => {
      const { Config } = await context.docker.getContainer(workspace.containerId!).inspect();
      expect(Config.Env).toContain(`OH_SESSION_API_KEYS_0=${callerKey}`);
      return Config.Env.find((entry) => entry.startsWith('SESSION_API_KEY='))!.slice(16);
    };
    const status = async (workspace: DockerWorkspace, key: string) =>
      (
        await fetch(`${workspace.host}/api/conversations/count`, {
          headers: { 'X-Session-API-Key': key },
        })
      ).status;
    // The caller's key opens both servers, for the caller's own clients.
    expect(await status(first, callerKey)).toBe(200);
    expect(await status(second, callerKey)).toBe(200);
    // Each workspace sends a key of its own, which the other container refuses: a request of
    // the second that reached the first (given its address after its death) would not run.
    const secondKey = await ownKey(second);
    expect(secondKey).toMatch(/^[0-9a-f]{64}$/);
    expect(secondKey).not.toBe(await ownKey(first));
    expect(await status(second, secondKey)).toBe(200);
    expect(await status(first, secondKey)).toBe(401);
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
