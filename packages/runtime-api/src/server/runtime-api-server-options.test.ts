import { WorkspaceError } from '@agent-workspace/core';
import { describe, expect, it } from 'vitest';
import { DockerRuntimeBackend } from '../backend/docker-runtime-backend.js';
import { SwarmRuntimeBackend } from '../backend/swarm-runtime-backend.js';
import {
  RUNTIME_API_SERVER_DEFAULTS,
  type RuntimeApiServerOptions,
  resolveRuntimeApiServerOptions,
} from './runtime-api-server-options.js';
import { requestIssues, scaleResources } from './start-session.js';

// Connects lazily: building one asks nothing of an engine.
const backend = new DockerRuntimeBackend({ namespace: 'options-test' });
const KEY = 'api-key-0123456789';
const SECRET = 'session-secret-0123456789-0123456789';
const valid: RuntimeApiServerOptions = {
  apiKeys: [KEY],
  sessionKeySecret: SECRET,
  backend,
  images: ['agent-workspace/agent-server:test'],
};

/** The fields an `INVALID_CONFIG` error names, and its message. */
function configError(options: unknown): { fields: string[]; message: string } {
  try {
    resolveRuntimeApiServerOptions(options as RuntimeApiServerOptions);
  } catch (error) {
    expect(WorkspaceError.isInstance(error, 'INVALID_CONFIG')).toBe(true);
    const workspaceError = error as WorkspaceError;
    return { fields: workspaceError.details.fields as string[], message: workspaceError.message };
  }
  throw new Error('expected INVALID_CONFIG');
}

describe('resolveRuntimeApiServerOptions', () => {
  it('applies the documented defaults and keeps the backend itself', () => {
    const resolved = resolveRuntimeApiServerOptions(valid);
    expect(resolved).toMatchObject({ ...RUNTIME_API_SERVER_DEFAULTS, resources: {} });
    expect(RUNTIME_API_SERVER_DEFAULTS).toMatchObject({ host: '127.0.0.1', port: 3000 });
    expect(resolved.idleTimeoutSeconds).toBeUndefined();
    expect(resolved.backend).toBe(backend);
  });

  it('names every bad option and never shows a secret', () => {
    const short = configError({ ...valid, apiKeys: ['short'], sessionKeySecret: 'tiny-secret' });
    expect(short.fields).toEqual(['apiKeys.0', 'sessionKeySecret']);
    expect(short.message).not.toContain('short');
    expect(short.message).not.toContain('tiny-secret');
    expect(configError({ ...valid, apiKeys: [] }).fields).toEqual(['apiKeys']);
    expect(configError({ ...valid, images: [] }).fields).toEqual(['images']);
    expect(configError({ ...valid, backend: {} }).fields).toEqual(['backend']);
    expect(configError({ ...valid, maxSessions: 0 }).fields).toEqual(['maxSessions']);
    expect(configError({ ...valid, port: 65_536 }).fields).toEqual(['port']);
    expect(configError({ ...valid, idleAction: 'kill' }).fields).toEqual(['idleAction']);
    expect(configError({ ...valid, idleTimeoutSeconds: 0 }).fields).toEqual(['idleTimeoutSeconds']);
    expect(configError({ ...valid, unacknowledgedStartGraceSeconds: 0 }).fields).toEqual([
      'unacknowledgedStartGraceSeconds',
    ]);
    expect(configError({ ...valid, resources: { memoryBytes: 1.5 } }).fields).toEqual([
      'resources.memoryBytes',
    ]);
    expect(configError({ ...valid, resources: { gpus: 1 } }).fields).toEqual(['resources']);
    const { apiKeys: _, ...withoutKeys } = valid;
    expect(configError(withoutKeys).fields).toEqual(['apiKeys']);
  });
});

describe('the /start checks beyond the schema', () => {
  const body = { image: 'agent-workspace/agent-server:test', session_id: 's1' };

  it('passes an allowed image with harmless variables', () => {
    expect(requestIssues(valid as never, { ...body, environment: { DEBUG: '1' } })).toEqual([]);
  });

  it('names the image, reserved variables and a registry pull', () => {
    const issues = requestIssues(valid as never, {
      ...body,
      image: 'evil:latest',
      environment: {
        SESSION_API_KEY: 'mine',
        session_api_key_sha256: 'x',
        OH_SESSION_API_KEYS_0: 'y',
      },
      image_pull_policy: 'Always',
    });
    expect(issues.map((issue) => issue.loc)).toEqual([
      ['body', 'image'],
      ['body', 'environment', 'SESSION_API_KEY'],
      ['body', 'environment', 'session_api_key_sha256'],
      ['body', 'environment', 'OH_SESSION_API_KEYS_0'],
      ['body', 'image_pull_policy'],
    ]);
    // The variables' values (possibly secrets) are not echoed.
    expect(JSON.stringify(issues)).not.toContain('mine');
  });

  it('says why a variable is reserved, and lets the allowed Node ones through', () => {
    const issues = requestIssues(valid as never, {
      ...body,
      environment: {
        LD_PRELOAD: '/tmp/x.so',
        NODE_OPTIONS: '--inspect=0.0.0.0:9229',
        NODE_ENV: 'production',
        NODE_EXTRA_CA_CERTS: '/etc/ssl/proxy.pem',
      },
    });
    expect(issues).toEqual([
      expect.objectContaining({
        loc: ['body', 'environment', 'LD_PRELOAD'],
        msg: expect.stringMatching(/^Value error, LD_PRELOAD is reserved: .*load code/),
      }),
      expect.objectContaining({
        loc: ['body', 'environment', 'NODE_OPTIONS'],
        msg: expect.stringMatching(/^Value error, NODE_OPTIONS is reserved: .*Node runs/),
      }),
    ]);
    expect(JSON.stringify(issues)).not.toContain('/tmp/x.so');
  });

  it('scales the base limits by resource_factor', () => {
    expect(scaleResources({ memoryBytes: 256, cpus: 0.5, pidsLimit: 100 }, 4)).toEqual({
      memoryBytes: 1024,
      cpus: 2,
      pidsLimit: 400,
    });
    expect(scaleResources({}, 8)).toEqual({});
  });

  it('checks the operator allow-list entry by entry, and that the backend can sandbox', () => {
    expect(
      resolveRuntimeApiServerOptions({ ...valid, allowHosts: ['registry.npmjs.org'] }).allowHosts,
    ).toEqual(['registry.npmjs.org']);
    const bad = configError({ ...valid, allowHosts: ['ok.example', '127.1'] });
    expect(bad.fields).toEqual(['allowHosts.1']);
    expect(bad.message).toContain('non-canonical');
    const swarm = configError({
      ...valid,
      backend: new SwarmRuntimeBackend({ namespace: 'options-test' }),
      allowHosts: ['registry.npmjs.org'],
    });
    expect(swarm.fields).toEqual(['allowHosts']);
    expect(swarm.message).toContain('swarm backend cannot sandbox sessions');
  });
});

describe('allowedBindSources', () => {
  it('resolves each to its real absolute directory, and allows none by default', async () => {
    const { mkdtemp, mkdir, realpath, rm, symlink } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const root = await realpath(await mkdtemp(path.join(tmpdir(), 'allowed-binds-')));
    try {
      await mkdir(path.join(root, 'real'));
      await symlink(path.join(root, 'real'), path.join(root, 'link'));
      const resolved = resolveRuntimeApiServerOptions({
        ...valid,
        allowedBindSources: [path.join(root, 'link'), `${root}/real/../real/`],
      });
      expect(resolved.allowedBindSources).toEqual([
        path.join(root, 'real'),
        path.join(root, 'real'),
      ]);
      expect(resolveRuntimeApiServerOptions(valid).allowedBindSources).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('names a missing directory, a file and an empty entry', () => {
    const missing = configError({ ...valid, allowedBindSources: ['/no/such/dir-4711'] });
    expect(missing.fields).toEqual(['allowedBindSources.0']);
    expect(missing.message).toContain('must be an existing directory');
    const file = configError({ ...valid, allowedBindSources: ['/tmp', process.execPath] });
    expect(file.fields).toEqual(['allowedBindSources.1']);
    expect(file.message).toContain('is not a directory');
    expect(configError({ ...valid, allowedBindSources: [''] }).fields).toEqual([
      'allowedBindSources.0',
    ]);
  });
});
