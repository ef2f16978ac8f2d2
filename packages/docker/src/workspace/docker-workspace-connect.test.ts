/** The `connect` option: validation, the choice without a local engine, the container spec. */
import { WorkspaceError } from '@agent-workspace/core';
import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { readBridgePorts } from './bridge-ports.js';
import { buildContainerSpec } from './build-container-spec.js';
import { chooseConnection, defaultGateway } from './choose-connection.js';
import { DockerWorkspace } from './docker-workspace.js';

const image = 'agent-workspace/agent-server:dev';

function invalidConfigFields(options: Record<string, unknown>): unknown {
  try {
    new DockerWorkspace({ image, ...options });
  } catch (error) {
    expect(WorkspaceError.isInstance(error, 'INVALID_CONFIG'), String(error)).toBe(true);
    expect((error as Error).message).toContain('connect');
    return (error as WorkspaceError).details.fields;
  }
  throw new Error('expected INVALID_CONFIG');
}

describe('DockerWorkspace connect option', () => {
  it('accepts auto, bridge and published-port, defaulting to auto', () => {
    for (const connect of ['auto', 'bridge', 'published-port'] as const) {
      expect(new DockerWorkspace({ image, connect }).connection).toBeUndefined();
    }
    expect(new DockerWorkspace({ image }).connection).toBeUndefined();
  });

  it('rejects an unknown value with INVALID_CONFIG naming connect', () => {
    expect(invalidConfigFields({ connect: 'host-port' })).toContain('connect');
  });

  it("rejects connect: 'bridge' with a publishAddress it would not use", () => {
    expect(invalidConfigFields({ connect: 'bridge', publishAddress: '0.0.0.0' })).toContain(
      'connect',
    );
    expect(
      () => new DockerWorkspace({ image, connect: 'bridge', publishAddress: '127.0.0.1' }),
    ).not.toThrow();
  });

  it("rejects connect: 'bridge' with deferInit, whose key after initialize() is the caller's", () => {
    expect(invalidConfigFields({ connect: 'bridge', deferInit: true })).toContain('connect');
    for (const connect of ['auto', 'published-port'] as const) {
      expect(() => new DockerWorkspace({ image, connect, deferInit: true })).not.toThrow();
    }
    expect(
      () => new DockerWorkspace({ image, connect: 'bridge', sessionApiKey: 'c'.repeat(32) }),
    ).not.toThrow();
  });
});

describe('the session keys in the container environment', () => {
  const environment = (env?: Record<string, string>, acceptedApiKey?: string) =>
    buildContainerSpec({
      options: { image, publishAddress: '127.0.0.1', env },
      labels: {},
      environment: {},
      apiKey: 'own'.repeat(11),
      acceptedApiKey,
    }).Env!;

  it("sets the workspace's own key as SESSION_API_KEY and the caller's as another accepted key", () => {
    const env = environment(undefined, 'caller'.repeat(4));
    expect(env).toContain(`SESSION_API_KEY=${'own'.repeat(11)}`);
    expect(env).toContain(`OH_SESSION_API_KEYS_0=${'caller'.repeat(4)}`);
    expect(environment().some((entry) => entry.startsWith('OH_SESSION_API_KEYS_'))).toBe(false);
  });

  it("puts the caller's key at an index env leaves free, keeping the keys env sets", () => {
    const env = environment(
      { OH_SESSION_API_KEYS_0: 'zero'.repeat(4), OH_SESSION_API_KEYS_1: 'one'.repeat(6) },
      'caller'.repeat(4),
    );
    expect(env).toContain(`OH_SESSION_API_KEYS_0=${'zero'.repeat(4)}`);
    expect(env).toContain(`OH_SESSION_API_KEYS_1=${'one'.repeat(6)}`);
    expect(env).toContain(`OH_SESSION_API_KEYS_2=${'caller'.repeat(4)}`);
  });
});

describe('chooseConnection', () => {
  const local = new Docker({ socketPath: '/nonexistent/docker.sock' });

  it('keeps an explicit choice without asking the engine', async () => {
    for (const connect of ['bridge', 'published-port'] as const) {
      expect(
        await chooseConnection({ docker: local, connect, publishAddress: '127.0.0.1' }),
      ).toEqual({ connection: connect, verify: false });
    }
  });

  it('publishes for a remote engine, a non-loopback publishAddress or a container network', async () => {
    const remote = new Docker({ host: '192.0.2.10', port: 2375 });
    const auto = { connect: 'auto', publishAddress: '127.0.0.1' } as const;
    const published = { connection: 'published-port', verify: false };
    expect(await chooseConnection({ ...auto, docker: remote })).toEqual(published);
    expect(await chooseConnection({ ...auto, docker: local, publishAddress: '0.0.0.0' })).toEqual(
      published,
    );
    expect(await chooseConnection({ ...auto, docker: local, network: 'container:other' })).toEqual(
      published,
    );
  });

  it('publishes when the key may open other containers, before asking the engine', async () => {
    const docker = new Docker({ socketPath: '/nonexistent/docker.sock' });
    let asked = false;
    docker.getNetwork = (...args) => {
      asked = true;
      return Docker.prototype.getNetwork.apply(docker, args);
    };
    const auto = { docker, connect: 'auto', publishAddress: '127.0.0.1', sharedKey: true } as const;
    expect(await chooseConnection(auto)).toEqual({ connection: 'published-port', verify: false });
    expect(asked).toBe(false);
  });

  it("takes a subnet's first host address as its gateway when the engine names none", () => {
    expect(defaultGateway('172.17.0.0/16')).toBe('172.17.0.1');
    expect(defaultGateway('10.20.30.64/26')).toBe('10.20.30.65');
    expect(defaultGateway('192.168.1.77/24')).toBe('192.168.1.1');
    for (const none of [undefined, '', 'fd00::/64', '10.0.0.0/31', 'not-a-subnet']) {
      expect(defaultGateway(none)).toBeUndefined();
    }
  });

  it('publishes when the engine cannot be asked about the network', async () => {
    expect(
      await chooseConnection({ docker: local, connect: 'auto', publishAddress: '127.0.0.1' }),
    ).toEqual({ connection: 'published-port', verify: false });
  });
});

describe('container spec and ports of the bridge connection', () => {
  it('exposes but does not publish ports when publishPorts is false', () => {
    const spec = buildContainerSpec({
      options: { image, publishAddress: '127.0.0.1', extraPorts: [5173] },
      labels: {},
      apiKey: 'k'.repeat(32),
      environment: {},
      publishPorts: false,
    });
    expect(Object.keys(spec.ExposedPorts ?? {})).toEqual(['8000/tcp', '5173/tcp']);
    expect(spec.HostConfig?.PortBindings).toBeUndefined();
  });

  it('gives the container address per port, by network name or as the only network', () => {
    const info = {
      NetworkSettings: { Networks: { work: { IPAddress: '172.30.0.4', GlobalIPv6Address: '' } } },
    } as unknown as Docker.ContainerInspectInfo;
    const byName = readBridgePorts({ info, network: 'work', ports: [8000, 5173] });
    expect(byName.get(5173)).toEqual({
      containerPort: 5173,
      host: '172.30.0.4',
      port: 5173,
      url: 'http://172.30.0.4:5173',
    });
    expect(readBridgePorts({ info, network: 'b1d0', ports: [8000] }).get(8000)?.url).toBe(
      'http://172.30.0.4:8000',
    );
    const none = {
      NetworkSettings: { Networks: { bridge: { IPAddress: '' } } },
    } as unknown as Docker.ContainerInspectInfo;
    expect(readBridgePorts({ info: none, ports: [8000] }).size).toBe(0);
  });
});
