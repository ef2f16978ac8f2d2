import { WorkspaceError } from '@agent-workspace/core';
import type { StartRuntimeRequestWire } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import { DockerRuntimeBackend } from '../backend/docker-runtime-backend.js';
import {
  sessionContainerName,
  sessionIdOfContainerName,
  warmContainerName,
} from '../backend/session-container-name.js';
import {
  RUNTIME_LABELS,
  sessionLabelFields,
  sessionLabels,
  warmSandboxLabels,
} from '../backend/session-labels.js';
import { SwarmRuntimeBackend } from '../backend/swarm-runtime-backend.js';
import {
  type RuntimeApiServerOptions,
  resolveRuntimeApiServerOptions,
} from './runtime-api-server-options.js';
import {
  deriveClaimedKey,
  deriveSandboxKey,
  deriveSessionKey,
  sessionKeyOf,
} from './session-key.js';
import { DEFAULT_WARM_POOL_WORKING_DIR, MAX_WARM_SANDBOXES } from './warm-pool-options.js';
import { warmPoolServes } from './warm-pool-serves.js';

const IMAGE = 'agent-workspace/agent-server:test';
const OTHER = 'agent-workspace/agent-server:other';
// Both connect lazily: building one asks nothing of an engine.
const docker = new DockerRuntimeBackend({ namespace: 'pool-options-test' });
const swarm = new SwarmRuntimeBackend({ namespace: 'pool-options-test' });
const base: RuntimeApiServerOptions = {
  apiKeys: ['api-key-0123456789'],
  sessionKeySecret: 'session-secret-0123456789-0123456789',
  backend: docker,
  images: [IMAGE, OTHER],
};

/** The fields an `INVALID_CONFIG` error names, and its message. */
function configError(options: Partial<RuntimeApiServerOptions>): {
  fields: string[];
  message: string;
} {
  try {
    resolveRuntimeApiServerOptions({ ...base, ...options } as RuntimeApiServerOptions);
  } catch (error) {
    expect(WorkspaceError.isInstance(error, 'INVALID_CONFIG')).toBe(true);
    const { details, message } = error as WorkspaceError;
    return { fields: details.fields as string[], message };
  }
  throw new Error('expected INVALID_CONFIG');
}

describe('the warmPool option', () => {
  it('defaults to no pool, and a pool entry to /workspace and the image user', () => {
    expect(resolveRuntimeApiServerOptions(base).warmPool).toEqual([]);
    const resolved = resolveRuntimeApiServerOptions({
      ...base,
      warmPool: [{ image: IMAGE, count: 2 }],
    });
    expect(resolved.warmPool).toEqual([
      { image: IMAGE, count: 2, workingDir: DEFAULT_WARM_POOL_WORKING_DIR },
    ]);
  });

  it('refuses an image that is not allowed, naming the entry', () => {
    const { fields, message } = configError({ warmPool: [{ image: 'elsewhere:1', count: 1 }] });
    expect(fields).toEqual(['warmPool.0.image']);
    expect(message).toContain('not one of images');
  });

  it('refuses counts outside 1..MAX_WARM_SANDBOXES, per entry and in all', () => {
    expect(configError({ warmPool: [{ image: IMAGE, count: 0 }] }).fields).toEqual([
      'warmPool.0.count',
    ]);
    expect(configError({ warmPool: [{ image: IMAGE, count: 1.5 }] }).fields).toEqual([
      'warmPool.0.count',
    ]);
    const half = Math.ceil((MAX_WARM_SANDBOXES + 1) / 2);
    const { fields, message } = configError({
      warmPool: [
        { image: IMAGE, count: half },
        { image: OTHER, count: half },
      ],
    });
    expect(fields).toEqual(['warmPool']);
    expect(message).toContain(`at most ${MAX_WARM_SANDBOXES}`);
  });

  it('refuses two pools of one image, a relative working directory and unknown fields', () => {
    const twice = [
      { image: IMAGE, count: 1 },
      { image: IMAGE, count: 1 },
    ];
    expect(configError({ warmPool: twice }).fields).toEqual(['warmPool.1.image']);
    expect(
      configError({ warmPool: [{ image: IMAGE, count: 1, workingDir: 'work' }] }).fields,
    ).toEqual(['warmPool.0.workingDir']);
    const extra = [{ image: IMAGE, count: 1, environment: {} }] as never;
    expect(configError({ warmPool: extra }).fields).toEqual(['warmPool.0']);
  });

  it('is refused on the swarm backend with a config error naming warmPool', () => {
    const { fields, message } = configError({
      backend: swarm,
      warmPool: [{ image: IMAGE, count: 1 }],
    });
    expect(fields).toEqual(['warmPool']);
    expect(message).toContain('swarm backend cannot keep warm sandboxes');
    expect(() => resolveRuntimeApiServerOptions({ ...base, backend: swarm })).not.toThrow();
  });
});

describe('warmPoolServes', () => {
  const entry = { image: IMAGE, count: 1, workingDir: '/workspace' };
  const body: StartRuntimeRequestWire = {
    image: IMAGE,
    session_id: 's1',
    working_dir: '/workspace',
    environment: {},
    resource_factor: 1,
  };

  it('serves the pool defaults, whatever the ignored fields say', () => {
    expect(warmPoolServes(entry, body)).toBe(true);
    const { environment: _e, resource_factor: _r, ...bare } = body;
    expect(warmPoolServes(entry, { ...bare, command: 'x', runtime_class: 'y', fs_group: 1 })).toBe(
      true,
    );
    expect(warmPoolServes({ ...entry, runAsUser: 10001 }, { ...body, run_as_user: 10001 })).toBe(
      true,
    );
  });

  it('starts cold for any other environment, directory, user, factor or image', () => {
    expect(warmPoolServes(entry, { ...body, environment: { A: '1' } })).toBe(false);
    expect(warmPoolServes(entry, { ...body, working_dir: '/srv' })).toBe(false);
    expect(warmPoolServes(entry, { ...body, working_dir: undefined })).toBe(false);
    expect(warmPoolServes(entry, { ...body, run_as_user: 0 })).toBe(false);
    expect(warmPoolServes({ ...entry, runAsUser: 10001 }, body)).toBe(false);
    expect(warmPoolServes(entry, { ...body, resource_factor: 2 })).toBe(false);
    expect(warmPoolServes(entry, { ...body, image: OTHER })).toBe(false);
  });

  it('starts cold from a snapshot: a warm sandbox holds the image files, not the snapshot ones', () => {
    expect(warmPoolServes(entry, { ...body, from_snapshot: '0'.repeat(32) })).toBe(false);
  });
});

describe('claim names and keys', () => {
  it('reads the session id back from a session container name of its namespace only', () => {
    const name = sessionContainerName('ns', 'agent-server-1.a_b');
    expect(sessionIdOfContainerName(`/${name}`, 'ns')).toBe('agent-server-1.a_b');
    expect(sessionIdOfContainerName(name, 'other')).toBeUndefined();
    expect(sessionIdOfContainerName(warmContainerName('0'.repeat(32)), 'ns')).toBeUndefined();
    expect(sessionIdOfContainerName(`${name.slice(0, 40)}x${name.slice(41)}`, 'ns')).toBe(
      undefined,
    );
  });

  it('keys a warm sandbox by its runtime id and its claiming session by both ids, in domains of their own', () => {
    const fields = { sessionId: 's1', runtimeId: 'r1', keyNonce: 'n1' };
    const secret = 'secret';
    expect(sessionKeyOf(secret, fields)).toBe(deriveSessionKey(secret, 's1', 'n1'));
    const claimed = sessionKeyOf(secret, { ...fields, pooled: true, deferredInit: true });
    expect(claimed).toBe(deriveClaimedKey(secret, 's1', 'r1', 'n1'));
    // Neither the warm sandbox's init key nor another session's claim of it gives the key.
    expect(claimed).not.toBe(deriveSandboxKey(secret, 'r1', 'n1'));
    expect(claimed).not.toBe(deriveClaimedKey(secret, 's2', 'r1', 'n1'));
    expect(deriveSandboxKey(secret, 's1', 'n1')).not.toBe(deriveSessionKey(secret, 's1', 'n1'));
  });

  it('keys a session claimed before warm sandboxes started dormant with the sandbox key it kept', () => {
    const secret = 'secret';
    const base = {
      namespace: 'ns',
      runtimeId: 'r1',
      image: IMAGE,
      resourceFactor: 1,
      createdAt: new Date(0).toISOString(),
      keyNonce: 'n1',
    };
    // What the claim of each kind leaves in the engine: the warm labels plus the session id.
    const claimedFrom = (labels: Record<string, string>) =>
      sessionLabelFields({ ...labels, [RUNTIME_LABELS.sessionId]: 's1' });
    const current = claimedFrom(warmSandboxLabels(base));
    expect(current).toMatchObject({ pooled: true, deferredInit: true });
    expect(sessionKeyOf(secret, current!)).toBe(deriveClaimedKey(secret, 's1', 'r1', 'n1'));

    const { [RUNTIME_LABELS.deferredInit]: _, ...before } = warmSandboxLabels(base);
    const old = claimedFrom(before);
    expect(old).toMatchObject({ pooled: true });
    expect(old?.deferredInit).toBeUndefined();
    expect(sessionKeyOf(secret, old!)).toBe(deriveSandboxKey(secret, 'r1', 'n1'));
    // The label means nothing on a session started cold.
    const cold = sessionLabelFields({
      ...sessionLabels({ ...base, sessionId: 's1' }),
      [RUNTIME_LABELS.deferredInit]: 'true',
    });
    expect(cold?.deferredInit).toBeUndefined();
    expect(sessionKeyOf(secret, cold!)).toBe(deriveSessionKey(secret, 's1', 'n1'));
  });
});
