import { inspect } from 'node:util';
import { createWorkspace, WorkspaceError } from '@agent-workspace/core';
import { afterEach, describe, expect, it } from 'vitest';
import { RUNTIME_API_KEY_VARIABLE } from './register-remote-api-workspace-type.js';
import { RemoteAPIWorkspace } from './remote-api-workspace.js';
import type { RemoteAPIWorkspaceOptions } from './remote-api-workspace-options.js';

const KEY = 'runtime-key-0123456789abcdef';
const valid: RemoteAPIWorkspaceOptions = {
  runtimeApiUrl: 'http://127.0.0.1:9',
  runtimeApiKey: KEY,
  image: 'agent-workspace/agent-server:dev',
};

/** The INVALID_CONFIG error `build` throws. */
function configError(build: () => unknown): WorkspaceError {
  try {
    build();
  } catch (error) {
    if (WorkspaceError.isInstance(error, 'INVALID_CONFIG')) return error;
    throw error;
  }
  throw new Error('expected INVALID_CONFIG');
}

describe('RemoteAPIWorkspace options', () => {
  it('applies the defaults without calling the Runtime API', async () => {
    await using workspace = new RemoteAPIWorkspace(valid);
    expect(workspace.kind).toBe('remote-api');
    expect(workspace.workingDir).toBe('/workspace');
    expect(workspace.sessionId).toMatch(/^agent-server-[0-9a-f]{32}$/);
    expect(workspace.runtimeId).toBeUndefined();
    expect(workspace.runtimeUrl).toBeUndefined();
    expect(workspace.status).toBe('new');
    expect(new RemoteAPIWorkspace(valid).sessionId).not.toBe(workspace.sessionId);
  });

  it('keeps a given session id and working directory', async () => {
    await using workspace = new RemoteAPIWorkspace({
      ...valid,
      sessionId: 'my-session.1',
      workingDir: '/home/agent/project',
    });
    expect(workspace.sessionId).toBe('my-session.1');
    expect(workspace.workingDir).toBe('/home/agent/project');
  });

  it('never shows the runtime key', async () => {
    await using workspace = new RemoteAPIWorkspace(valid);
    expect(JSON.stringify(workspace)).not.toContain(KEY);
    expect(inspect(workspace, { depth: 10, showHidden: true })).not.toContain(KEY);
    expect(Object.values(workspace).join(' ')).not.toContain(KEY);
  });

  it.each([
    [{ runtimeApiUrl: undefined }, 'runtimeApiUrl'],
    [{ runtimeApiUrl: 'ftp://host' }, 'runtimeApiUrl: must be an http(s) URL'],
    [{ runtimeApiUrl: 'http://me:secret@host' }, 'runtimeApiUrl: must not carry credentials'],
    [{ runtimeApiKey: undefined }, 'runtimeApiKey'],
    [{ runtimeApiKey: 'has space' }, 'runtimeApiKey: must be a non-empty string'],
    [{ image: '' }, 'image'],
    [{ sessionId: '-leading-dash' }, 'sessionId: must start with a letter or digit'],
    [{ resourceFactor: 3 }, 'resourceFactor'],
    [{ env: { 'A=B': 'x' } }, 'env.A=B'],
    [{ workingDir: 'relative/dir' }, 'workingDir: must be an absolute path'],
    [{ startupTimeoutMs: 0 }, 'startupTimeoutMs'],
    [{ lifecycleTimeoutMs: -5 }, 'lifecycleTimeoutMs'],
    [{ requestTimeoutMs: Number.POSITIVE_INFINITY }, 'requestTimeoutMs'],
    [{ keepAlive: true, pauseOnClose: true }, 'pauseOnClose: give keepAlive or pauseOnClose'],
    [{ serverImage: 'x' }, 'serverImage'],
    [{ volumes: [{ type: 'volume', name: 'v', target: 'rel' }] }, 'volumes.0.target: must be an'],
    [{ volumes: [{ type: 'volume', name: 'a/b', target: '/v' }] }, 'volumes.0.name'],
    [
      { volumes: [{ type: 'bind', source: '/s', target: '/v', readOnly: 1 }] },
      'volumes.0.readOnly',
    ],
    [
      { volumes: [{ type: 'bind', source: '/s', target: '/v', read_only: true }] },
      'volumes.0.read_only',
    ],
    [
      {
        volumes: [
          { type: 'bind', source: '/s', target: '/v' },
          { type: 'volume', name: 'v', target: '/v' },
        ],
      },
      'volumes.1.target: must be neither the same as',
    ],
  ])('refuses %o with INVALID_CONFIG naming the field', (change, named) => {
    const error = configError(
      () => new RemoteAPIWorkspace({ ...valid, ...change } as RemoteAPIWorkspaceOptions),
    );
    expect(error.message).toContain('invalid remote-api workspace options');
    expect(error.message).toContain(named);
    expect(error.details.kind).toBe('remote-api');
    expect(error.details.fields).toContain(named.split(':')[0]);
  });

  it('names every bad field at once, without echoing the key', () => {
    const error = configError(
      () =>
        new RemoteAPIWorkspace({
          runtimeApiUrl: 'nope',
          runtimeApiKey: `${KEY} with a space`,
          image: '',
        }),
    );
    expect(error.details.fields).toEqual(['runtimeApiUrl', 'runtimeApiKey', 'image']);
    expect(error.message).not.toContain(KEY);
  });
});

describe('createWorkspace({ kind: "remote-api" })', () => {
  const saved = process.env[RUNTIME_API_KEY_VARIABLE];
  afterEach(() => {
    if (saved === undefined) delete process.env[RUNTIME_API_KEY_VARIABLE];
    else process.env[RUNTIME_API_KEY_VARIABLE] = saved;
  });

  it('is registered by importing the package', async () => {
    await import('../index.js');
    const error = await createWorkspace({ kind: 'remote-api', image: 'x' }).catch(
      (reason: unknown) => reason,
    );
    expect(WorkspaceError.isInstance(error, 'INVALID_CONFIG')).toBe(true);
    expect((error as WorkspaceError).message).toContain('runtimeApiUrl');
  });

  it('needs runtimeApiKey from the config or RUNTIME_API_KEY', async () => {
    await import('../index.js');
    delete process.env[RUNTIME_API_KEY_VARIABLE];
    const { runtimeApiKey: _key, ...withoutKey } = valid;
    const error = await createWorkspace({ kind: 'remote-api', ...withoutKey }).catch(
      (reason: unknown) => reason,
    );
    expect(WorkspaceError.isInstance(error, 'INVALID_CONFIG')).toBe(true);
    expect((error as WorkspaceError).details.fields).toEqual(['runtimeApiKey']);
    expect((error as WorkspaceError).message).toContain('RUNTIME_API_KEY');
  });

  it('takes the key from RUNTIME_API_KEY and then reaches for the Runtime API', async () => {
    await import('../index.js');
    process.env[RUNTIME_API_KEY_VARIABLE] = KEY;
    const { runtimeApiKey: _key, ...withoutKey } = valid;
    // Nothing listens on port 9 (discard): the key was accepted, the connection is not.
    const error = await createWorkspace({
      kind: 'remote-api',
      ...withoutKey,
      startupTimeoutMs: 5_000,
    }).catch((reason: unknown) => reason);
    expect(WorkspaceError.isInstance(error, 'CONNECTION_ERROR')).toBe(true);
    expect((error as WorkspaceError).message).toContain('cannot reach the Runtime API');
    expect((error as WorkspaceError).message).not.toContain(KEY);
  });
});
