import { describe, expect, it } from 'vitest';
import { volumeIssues } from './volume-issues.js';

const locs = (...args: Parameters<typeof volumeIssues>) =>
  volumeIssues(...args).map((issue) => issue.loc);

describe('volumeIssues', () => {
  const allowed = { allowedBindSources: ['/srv/shared', '/data'] };

  it('accepts exactly an allowed bind source (normalised) and any named volume', () => {
    expect(
      locs(allowed, {
        volumes: [
          { type: 'bind', source: '/srv/shared', target: '/mnt/a' },
          { type: 'bind', source: '/srv//shared/', target: '/mnt/b' },
          { type: 'volume', name: 'v', target: '/workspace/cache' },
        ],
      }),
    ).toEqual([]);
  });

  it('refuses a bind below, above or beside an allowed directory, and every bind by default', () => {
    for (const source of ['/srv/shared/sub', '/srv', '/srv/shared/../other', '/srv/sharedx']) {
      expect(locs(allowed, { volumes: [{ type: 'bind', source, target: '/m' }] }), source).toEqual([
        ['body', 'volumes', 0, 'source'],
      ]);
    }
    const [issue] = volumeIssues(
      {},
      { volumes: [{ type: 'bind', source: '/data', target: '/m' }] },
    );
    expect(issue?.msg).toContain('this server allows no bind mounts');
    expect(issue?.msg).toContain('--allow-bind');
  });

  it('refuses a target that is the working directory or contains it', () => {
    const volume = (target: string) => [{ type: 'volume' as const, name: 'v', target }];
    expect(locs({}, { volumes: volume('/workspace') })).toEqual([['body', 'volumes', 0, 'target']]);
    expect(locs({}, { volumes: volume('/home'), working_dir: '/home/agent/ws' })).toEqual([
      ['body', 'volumes', 0, 'target'],
    ]);
    expect(locs({}, { volumes: volume('/workspace'), working_dir: '/srv/ws' })).toEqual([]);
    expect(locs({}, { volumes: volume('/work') })).toEqual([]);
  });
});
