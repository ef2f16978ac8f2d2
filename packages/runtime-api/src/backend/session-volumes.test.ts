import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { testSession } from '../test-support/test-session.js';
import { RUNTIME_LABELS } from './session-labels.js';
import {
  SHARED_VOLUME_LABEL,
  sessionVolumes,
  sessionVolumesDigest,
  sharedVolumeName,
} from './session-volumes.js';
import { swarmServiceSpec } from './swarm-service-spec.js';

describe('sessionVolumes', () => {
  it('normalises bind sources and namespaces named volumes, labelled without a runtime id', () => {
    const volumes = sessionVolumes('ns', [
      { type: 'bind', source: '/srv/data/', target: '/data', read_only: true },
      { type: 'volume', name: 'cache', target: '/cache' },
    ]);
    expect(volumes).toEqual([
      { type: 'bind', source: '/srv/data', target: '/data', readOnly: true },
      {
        type: 'volume',
        source: sharedVolumeName('ns', 'cache'),
        target: '/cache',
        readOnly: false,
        labels: { [RUNTIME_LABELS.namespace]: 'ns', [SHARED_VOLUME_LABEL]: 'cache' },
      },
    ]);
    expect(sessionVolumes('ns', undefined)).toEqual([]);
  });

  it('never gives two namespaces the same engine volume', () => {
    expect(sharedVolumeName('a-b', 'c')).not.toBe(sharedVolumeName('a', 'b-c'));
    expect(sharedVolumeName('ns', 'cache')).toMatch(/^agent-workspace-volume-[0-9a-f]{12}-cache$/);
  });
});

describe('sessionVolumesDigest', () => {
  it('is undefined for none, and the same for the same mounts in any order', () => {
    expect(sessionVolumesDigest(undefined)).toBeUndefined();
    expect(sessionVolumesDigest([])).toBeUndefined();
    const a = { type: 'bind', source: '/srv', target: '/a' } as const;
    const b = { type: 'volume', name: 'v', target: '/b' } as const;
    const digest = sessionVolumesDigest([a, b]);
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(sessionVolumesDigest([b, a])).toBe(digest);
    expect(sessionVolumesDigest([{ ...a, read_only: false }, b])).toBe(digest);
    expect(sessionVolumesDigest([{ ...a, read_only: true }, b])).not.toBe(digest);
    expect(sessionVolumesDigest([{ ...a, source: '/srv/' }, b])).toBe(digest);
    expect(sessionVolumesDigest([a])).not.toBe(digest);
  });
});

describe('swarmServiceSpec volumes', () => {
  it('mounts binds and shared volumes after the working-directory volume', () => {
    const { spec } = testSession({ namespace: 'ns', image: 'img' });
    spec.volumes = sessionVolumes('ns', [
      { type: 'bind', source: '/srv', target: '/mnt/srv', read_only: true },
      { type: 'volume', name: 'cache', target: '/cache' },
    ]);
    const service = swarmServiceSpec({ spec, name: 'svc', constraints: [], reserve: false });
    const mounts = (service.TaskTemplate as Docker.ContainerTaskSpec).ContainerSpec?.Mounts ?? [];
    expect(mounts).toHaveLength(3);
    expect(mounts[0]).toMatchObject({ Target: '/workspace', Source: `svc-${spec.runtimeId}-data` });
    expect(mounts[1]).toEqual({ Type: 'bind', Source: '/srv', Target: '/mnt/srv', ReadOnly: true });
    expect(mounts[2]).toEqual({
      Type: 'volume',
      Source: sharedVolumeName('ns', 'cache'),
      Target: '/cache',
      ReadOnly: false,
      VolumeOptions: {
        NoCopy: false,
        Labels: { [RUNTIME_LABELS.namespace]: 'ns', [SHARED_VOLUME_LABEL]: 'cache' },
        DriverConfig: { Name: 'local', Options: {} },
      },
    });
    // The Swarm stop removes volumes by runtime id: a shared volume has none.
    expect(mounts[2]?.VolumeOptions?.Labels).not.toHaveProperty(RUNTIME_LABELS.runtimeId);
  });
});
