import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalWorkspace } from '../local/local-workspace.js';
import { RemoteWorkspace } from '../remote/remote-workspace.js';
import { rejectionOf } from '../testing/rejection-of.js';
import { agentServerEndpoint, hasAgentServer } from './agent-server-endpoint.js';
import type { Workspace } from './workspace.js';

describe('agent-server capability', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'agent-server-endpoint-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('a RemoteWorkspace has it and resolves to its host and key', async () => {
    await using workspace = new RemoteWorkspace({
      host: 'http://127.0.0.1:9/prefix/',
      workingDir: '/workspace',
      apiKey: 'secret-key-1',
    });
    expect(hasAgentServer(workspace)).toBe(true);
    const endpoint = await workspace.agentServerEndpoint();
    expect(endpoint.host).toBe('http://127.0.0.1:9/prefix');
    expect(endpoint.apiKey).toBe('secret-key-1');
  });

  it('keeps the key out of inspect and JSON of the endpoint and the workspace', async () => {
    await using workspace = new RemoteWorkspace({
      host: 'http://127.0.0.1:9',
      workingDir: '/workspace',
      apiKey: 'secret-key-2',
    });
    const endpoint = await workspace.agentServerEndpoint();
    expect(inspect(endpoint)).not.toContain('secret-key-2');
    expect(JSON.stringify(endpoint)).not.toContain('secret-key-2');
    expect(inspect(workspace, { depth: 5 })).not.toContain('secret-key-2');
    expect(Object.keys(endpoint)).toEqual(['host']);
  });

  it('a RemoteWorkspace without a key gives an endpoint without one', async () => {
    await using workspace = new RemoteWorkspace({ host: 'http://127.0.0.1:9', workingDir: '/w' });
    const endpoint = await workspace.agentServerEndpoint();
    expect(endpoint.apiKey).toBeUndefined();
    expect('apiKey' in endpoint).toBe(false);
  });

  it('a closed RemoteWorkspace rejects with WORKSPACE_CLOSED', async () => {
    const workspace = new RemoteWorkspace({ host: 'http://127.0.0.1:9', workingDir: '/w' });
    await workspace.close();
    const error = await rejectionOf(workspace.agentServerEndpoint());
    expect(error).toMatchObject({ code: 'WORKSPACE_CLOSED' });
  });

  it('a LocalWorkspace does not have it', async () => {
    await using workspace = new LocalWorkspace({ workingDir: directory });
    expect(hasAgentServer(workspace)).toBe(false);
    expect((workspace as Workspace).agentServerEndpoint).toBeUndefined();
  });

  it('any object implementing agentServerEndpoint has it', () => {
    const custom = {
      kind: 'custom',
      agentServerEndpoint: async () => agentServerEndpoint('http://example.invalid'),
    } as unknown as Workspace;
    expect(hasAgentServer(custom)).toBe(true);
  });

  it('agentServerEndpoint() makes a frozen object with a non-enumerable key', () => {
    const endpoint = agentServerEndpoint('http://h', 'k');
    expect(Object.isFrozen(endpoint)).toBe(true);
    expect(Object.getOwnPropertyDescriptor(endpoint, 'apiKey')).toMatchObject({
      enumerable: false,
      writable: false,
      value: 'k',
    });
  });
});
