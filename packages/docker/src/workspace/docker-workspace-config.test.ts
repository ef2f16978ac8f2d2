/**
 * DockerWorkspace option validation, config errors through `createWorkspace({ kind: 'docker' })`
 * and the error for an unreachable engine; none of them needs an engine.
 */
import { createWorkspace, WorkspaceError } from '@agent-workspace/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import '../index.js';
import { buildContainerSpec } from './build-container-spec.js';
import { DockerWorkspace } from './docker-workspace.js';
import type {
  DockerWorkspaceOptions,
  dockerWorkspaceOptionsSchema,
} from './docker-workspace-options.js';
import { registerDockerWorkspaceType } from './register-docker-workspace-type.js';

/** The INVALID_CONFIG error `build` throws; asserts it names `field`. */
function invalidConfig(build: () => unknown, field: string): WorkspaceError {
  let error: unknown;
  try {
    build();
  } catch (caught) {
    error = caught;
  }
  expect(WorkspaceError.isInstance(error, 'INVALID_CONFIG'), String(error)).toBe(true);
  expect((error as WorkspaceError).details.fields).toContain(field);
  expect((error as Error).message).toContain(field);
  return error as WorkspaceError;
}

describe('DockerWorkspace options', () => {
  const image = 'agent-workspace/agent-server:dev';
  const cases: Array<[string, Record<string, unknown>]> = [
    ['image', { image: '' }],
    ['image', { image: 'Bad Name' }],
    ['workingDir', { image, workingDir: 'relative' }],
    ['resources.memoryBytes', { image, resources: { memoryBytes: -1 } }],
    ['resources.cpus', { image, resources: { cpus: 0 } }],
    ['mounts.0.source', { image, mounts: [{ type: 'bind', source: 'rel', target: '/x' }] }],
    ['mounts.0.type', { image, mounts: [{ type: 'tmpfs', source: 'x', target: '/x' }] }],
    ['env.SESSION_API_KEY', { image, env: { SESSION_API_KEY: 'mine' } }],
    ['forwardEnv.0', { image, forwardEnv: ['A=B'] }],
    ['labels.agent-workspace.managed', { image, labels: { 'agent-workspace.managed': 'no' } }],
    ['network', { image, network: 'host' }],
    ['platform', { image, platform: 'amd64' }],
    ['extraPorts.0', { image, extraPorts: [70_000] }],
    ['extraHosts.0', { image, extraHosts: ['host.docker.internal'] }],
    ['extraHosts.0', { image, extraHosts: ['host.docker.internal:gateway'] }],
    ['extraHosts.1', { image, extraHosts: ['a:10.0.0.1', 'bad name:10.0.0.2'] }],
    ['dockerOptions', { image, docker: { modem: {} }, dockerOptions: {} }],
    ['bogus', { image, bogus: true }],
    ['sandbox.allowHosts', { image, sandbox: { network: false, allowHosts: ['a.example'] } }],
    ['sandbox.allowHosts.0', { image, sandbox: { allowHosts: [''] } }],
    ['user', { image, sandbox: true, user: 'root' }],
    ['user', { image, sandbox: { network: false }, user: '0:0' }],
  ];
  it.each(cases)('rejects a bad %s with INVALID_CONFIG naming it', (field, options) => {
    invalidConfig(() => new DockerWorkspace(options as unknown as DockerWorkspaceOptions), field);
  });

  it('documents exactly what the schema accepts', () => {
    type Accepted = z.input<typeof dockerWorkspaceOptionsSchema>;
    expectTypeOf<DockerWorkspaceOptions>().toMatchTypeOf<Accepted>();
    expectTypeOf<Omit<Accepted, 'docker' | 'dockerOptions'>>().toMatchTypeOf<
      Omit<DockerWorkspaceOptions, 'docker' | 'dockerOptions'>
    >();
  });

  it('accepts extraHosts with an IP or host-gateway and passes them to HostConfig.ExtraHosts', () => {
    const extraHosts = ['host.docker.internal:host-gateway', 'db.test:10.0.0.5', 'v6.test:::1'];
    expect(() => new DockerWorkspace({ image, extraHosts })).not.toThrow();
    const spec = buildContainerSpec({
      options: { image, publishAddress: '127.0.0.1', extraHosts },
      labels: {},
      environment: {},
      apiKey: 'k'.repeat(32),
    });
    expect(spec.HostConfig?.ExtraHosts).toEqual(extraHosts);
  });

  it('rejects a config without image through createWorkspace', async () => {
    const error = await createWorkspace({ kind: 'docker' }).catch((caught: unknown) => caught);
    expect(WorkspaceError.isInstance(error, 'INVALID_CONFIG')).toBe(true);
    expect((error as Error).message).toContain('image');
  });

  it('registers the docker kind once, however often it is asked to', () => {
    registerDockerWorkspaceType();
    registerDockerWorkspaceType();
  });

  it('an unreachable engine is CONNECTION_ERROR naming the engine and DOCKER_HOST', async () => {
    const error = await DockerWorkspace.create({
      image,
      dockerOptions: { socketPath: '/nonexistent/docker.sock' },
      reapOrphans: false,
    }).catch((caught: unknown) => caught);
    expect(WorkspaceError.isInstance(error, 'CONNECTION_ERROR'), String(error)).toBe(true);
    expect((error as Error).message).toContain('unix:///nonexistent/docker.sock');
    expect((error as Error).message).toContain('is the Docker engine running? DOCKER_HOST=');
  });
});
