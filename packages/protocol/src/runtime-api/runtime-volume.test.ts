import { describe, expect, it } from 'vitest';
import {
  MAX_RUNTIME_VOLUME_NAME_LENGTH,
  MAX_RUNTIME_VOLUME_PATH_LENGTH,
  MAX_RUNTIME_VOLUMES,
  runtimeVolumesWireSchema,
} from './runtime-volume.js';
import { startRuntimeRequestWireSchema } from './start-runtime-request.js';

/** The distinct paths of the issues of parsing `volumes`, joined with `.`; `[]` when valid. */
function issuePaths(volumes: unknown): string[] {
  const parsed = runtimeVolumesWireSchema.safeParse(volumes);
  if (parsed.success) return [];
  return [...new Set(parsed.error.issues.map((issue) => issue.path.join('.')))];
}

describe('runtimeVolumesWireSchema', () => {
  it('accepts binds and named volumes, read-only or not', () => {
    const volumes = [
      { type: 'bind', source: '/srv/data', target: '/data', read_only: true },
      { type: 'volume', name: 'cache_1.x-y', target: '/workspace/cache' },
    ];
    expect(runtimeVolumesWireSchema.parse(volumes)).toEqual(volumes);
    const body = { image: 'i', session_id: 's', volumes };
    expect(startRuntimeRequestWireSchema.parse(body).volumes).toEqual(volumes);
  });

  it('refuses targets that are relative, not normalised, /, reserved or with NUL', () => {
    const target = (value: string) => issuePaths([{ type: 'volume', name: 'v', target: value }]);
    for (const bad of [
      'data',
      '/data/',
      '/a//b',
      '/a/./b',
      '/a/../b',
      '/',
      '/opt',
      '/opt/agent-server',
      '/opt/agent-server/lib',
      '/proc',
      '/sys/fs',
      '/dev',
      '/a\0b',
      `/${'a'.repeat(MAX_RUNTIME_VOLUME_PATH_LENGTH)}`,
    ]) {
      expect(target(bad), bad).toEqual(['0.target']);
    }
    expect(target('/opt/other')).toEqual([]);
    expect(target('/device')).toEqual([]);
  });

  it('refuses bad names, sources, unknown fields, duplicate or nested targets and too many', () => {
    for (const name of ['', '-x', 'a/b', 'a b', 'x'.repeat(MAX_RUNTIME_VOLUME_NAME_LENGTH + 1)]) {
      expect(issuePaths([{ type: 'volume', name, target: '/v' }]), name).toEqual(['0.name']);
    }
    for (const source of ['', 'rel', '/a\0b']) {
      expect(issuePaths([{ type: 'bind', source, target: '/v' }]), source).toEqual(['0.source']);
    }
    expect(issuePaths([{ type: 'bind', name: 'v', target: '/v' }])).toContain('0.source');
    expect(issuePaths([{ type: 'tmpfs', target: '/v' }])).toEqual(['0.type']);
    expect(issuePaths([{ type: 'volume', name: 'v', target: '/v', driver: 'x' }])).toEqual(['0']);
    const twice = [
      { type: 'volume', name: 'a', target: '/v' },
      { type: 'bind', source: '/srv', target: '/v' },
    ];
    expect(issuePaths(twice)).toEqual(['1.target']);
    const nested = [
      { type: 'volume', name: 'a', target: '/v/inner' },
      { type: 'volume', name: 'b', target: '/w' },
      { type: 'bind', source: '/srv', target: '/v' },
    ];
    expect(issuePaths(nested)).toEqual(['2.target']);
    expect(issuePaths([nested[2], nested[1], nested[0]])).toEqual(['2.target']);
    expect(issuePaths([{ ...nested[0], target: '/vv' }, nested[2]])).toEqual([]);
    const many = Array.from({ length: MAX_RUNTIME_VOLUMES + 1 }, (_, index) => ({
      type: 'volume',
      name: `v${index}`,
      target: `/v${index}`,
    }));
    expect(issuePaths(many)).toEqual(['']);
    expect(issuePaths(many.slice(1))).toEqual([]);
  });
});
