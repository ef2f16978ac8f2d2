import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { WorkspaceError } from '../errors/workspace-error.js';
import { LocalWorkspace } from '../local/local-workspace.js';
import { RemoteWorkspace } from '../remote/remote-workspace.js';
import { rejectionOf } from '../testing/rejection-of.js';
import { createWorkspace } from './create-workspace.js';
import { listWorkspaceKinds, registerWorkspaceType } from './workspace-registry.js';

let workingDir: string;
beforeAll(async () => {
  workingDir = await mkdtemp(path.join(tmpdir(), 'create-workspace-'));
});
afterAll(async () => {
  await rm(workingDir, { recursive: true, force: true });
});

async function rejection(promise: Promise<unknown>): Promise<WorkspaceError> {
  const error = await rejectionOf(promise);
  if (!WorkspaceError.isInstance(error)) throw new Error(`expected a WorkspaceError, got ${error}`);
  return error;
}

describe('createWorkspace', () => {
  it('builds a LocalWorkspace from { workingDir }', async () => {
    await using workspace = await createWorkspace({ workingDir });
    expect(workspace).toBeInstanceOf(LocalWorkspace);
    expect(workspace.kind).toBe('local');
    expect(workspace.workingDir).toBe(workingDir);
    const result = await workspace.executeCommand('pwd');
    expect(result.stdout.trim()).toBe(workingDir);
  });

  it('accepts an explicit local kind', async () => {
    await using workspace = await createWorkspace({ kind: 'local', workingDir });
    expect(workspace.kind).toBe('local');
  });

  it('names the bad field of an invalid config', async () => {
    const error = await rejection(createWorkspace({ workingDir: 42 } as never));
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.message).toContain('workingDir');
    expect(error.details.fields).toEqual(['workingDir']);
  });

  it('rejects unknown fields instead of ignoring them', async () => {
    const error = await rejection(createWorkspace({ workingDir, workDir: '/x' } as never));
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.message).toContain('workDir');
  });

  it('rejects a config that is not an object', async () => {
    const error = await rejection(createWorkspace(null as never));
    expect(error.code).toBe('INVALID_CONFIG');
  });

  it('reports an unknown kind with the registered ones and how to register it', async () => {
    const error = await rejection(createWorkspace({ kind: 'nope', workingDir }));
    expect(error.code).toBe('UNKNOWN_WORKSPACE_KIND');
    expect(error.details.kind).toBe('nope');
    expect(error.message).toContain('registered kinds: local, remote');
    expect(error.message).toContain('registerWorkspaceType() before createWorkspace()');
  });

  it('names the package to import for a kind one of ours registers', async () => {
    // Core never imports @agent-workspace/docker, so its kind is not registered here.
    const error = await rejection(createWorkspace({ kind: 'docker', image: 'ubuntu' }));
    expect(error.code).toBe('UNKNOWN_WORKSPACE_KIND');
    expect(error.details.kind).toBe('docker');
    expect(error.message).toContain(
      `"docker" is registered by @agent-workspace/docker: import '@agent-workspace/docker' first`,
    );
    expect(error.message).not.toContain('registerWorkspaceType');
  });

  it('validates a remote config and builds a RemoteWorkspace from { host, workingDir }', async () => {
    const invalid = await rejection(createWorkspace({ host: 'not a url', workingDir: '/w' }));
    expect(invalid.code).toBe('INVALID_CONFIG');
    expect(invalid.message).toContain('host');
    const badTimeout = await rejection(
      createWorkspace({ host: 'http://127.0.0.1:8000', workingDir: '/w', requestTimeoutMs: -1 }),
    );
    expect(badTimeout.code).toBe('INVALID_CONFIG');
    expect(badTimeout.message).toContain('requestTimeoutMs');

    await using workspace = await createWorkspace({
      host: 'http://127.0.0.1:8000/',
      workingDir: '/w',
      apiKey: 'key',
    });
    expect(workspace).toBeInstanceOf(RemoteWorkspace);
    expect(workspace.kind).toBe('remote');
    expect(workspace.workingDir).toBe('/w');
    expect((workspace as RemoteWorkspace).host).toBe('http://127.0.0.1:8000');
  });
});

describe('registerWorkspaceType', () => {
  it('builds a registered kind from JSON config, validated by its schema', async () => {
    const unregister = registerWorkspaceType({
      kind: 'scratch',
      schema: z.object({ kind: z.literal('scratch'), subdir: z.string().min(1) }),
      create: ({ subdir }) => new LocalWorkspace({ workingDir: path.join(workingDir, subdir) }),
    });
    try {
      expect(listWorkspaceKinds()).toContain('scratch');
      const config = JSON.parse('{"kind":"scratch","subdir":"a"}');
      await using workspace = await createWorkspace(config);
      expect(workspace.workingDir).toBe(path.join(workingDir, 'a'));
      const error = await rejection(createWorkspace({ kind: 'scratch', subdir: '' }));
      expect(error.code).toBe('INVALID_CONFIG');
      expect(error.message).toContain('subdir');
    } finally {
      unregister();
    }
    expect(listWorkspaceKinds()).not.toContain('scratch');
  });

  it('refuses a duplicate kind', () => {
    const definition = {
      kind: 'twice',
      schema: z.object({ kind: z.literal('twice') }),
      create: () => new LocalWorkspace({ workingDir }),
    };
    const unregister = registerWorkspaceType(definition);
    try {
      expect(() => registerWorkspaceType(definition)).toThrowError(/already registered/);
      try {
        registerWorkspaceType(definition);
      } catch (error) {
        expect(WorkspaceError.isInstance(error, 'DUPLICATE_WORKSPACE_KIND')).toBe(true);
      }
    } finally {
      unregister();
    }
  });

  it('refuses a malformed kind', () => {
    expect(() =>
      registerWorkspaceType({
        kind: 'Bad Kind',
        schema: z.object({}),
        create: () => new LocalWorkspace({ workingDir }),
      }),
    ).toThrowError(/kind must be/);
  });
});
