import { lstatSync, readlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type HolderLayout, holderArguments, SCRATCH_MOUNT_POINT } from './bubblewrap-arguments.js';

const layout: HolderLayout = {
  workingDir: '/tmp/ws',
  network: true,
  readOnlyPaths: [],
  writablePaths: [],
  home: '/root',
  userNamespace: false,
  shell: '/bin/sh',
  scratchRoot: '/var/tmp/scratches',
};

/** Index of the option `name` followed by `value` in `args`; -1 when absent. */
function indexOfOption(args: string[], name: string, value: string): number {
  return args.findIndex((arg, index) => arg === name && args[index + 1] === value);
}

describe('holderArguments', () => {
  it('mounts /tmp and HOME as tmpfs before binding a working dir that lies below them', () => {
    const args = holderArguments({ ...layout, workingDir: '/root/project/ws' });
    const bind = indexOfOption(args, '--bind', '/root/project/ws');
    expect(indexOfOption(args, '--tmpfs', '/tmp')).toBeGreaterThan(-1);
    expect(indexOfOption(args, '--tmpfs', '/tmp')).toBeLessThan(bind);
    expect(indexOfOption(args, '--tmpfs', '/root')).toBeLessThan(bind);
    expect(args[bind + 2]).toBe('/root/project/ws');
  });

  it('leaves HOME alone when the working dir contains it, and skips HOME=/', () => {
    expect(holderArguments({ ...layout, workingDir: '/home', home: '/home/me' })).not.toContain(
      '/home/me',
    );
    expect(indexOfOption(holderArguments({ ...layout, home: '/' }), '--tmpfs', '/')).toBe(-1);
  });

  it('binds nested paths after their parents so the inner one wins', () => {
    const args = holderArguments({
      ...layout,
      readOnlyPaths: ['/tmp/ws/.git'],
      writablePaths: ['/srv/cache'],
    });
    expect(indexOfOption(args, '--bind', '/tmp/ws')).toBeLessThan(
      indexOfOption(args, '--ro-bind', '/tmp/ws/.git'),
    );
    expect(indexOfOption(args, '--bind', '/srv/cache')).toBeGreaterThan(-1);
  });

  it('unshares the network only when network is off, and the user only when asked', () => {
    expect(holderArguments(layout)).not.toContain('--unshare-net');
    expect(holderArguments({ ...layout, network: false })).toContain('--unshare-net');
    expect(holderArguments(layout)).not.toContain('--unshare-user');
    expect(holderArguments({ ...layout, userNamespace: true }).slice(0, 5)).toEqual([
      '--unshare-user',
      '--uid',
      '0',
      '--gid',
      '0',
    ]);
  });

  it('mirrors each top-level system path as the host has it: link, directory or nothing', () => {
    const args = holderArguments(layout);
    for (const target of ['/bin', '/lib', '/lib32', '/lib64', '/libx32', '/sbin']) {
      let stats: ReturnType<typeof lstatSync> | undefined;
      try {
        stats = lstatSync(target);
      } catch {
        stats = undefined;
      }
      if (stats?.isSymbolicLink()) {
        expect(indexOfOption(args, '--symlink', readlinkSync(target))).toBeGreaterThan(-1);
        expect(args[indexOfOption(args, '--symlink', readlinkSync(target)) + 2]).toBe(target);
      } else if (stats?.isDirectory()) {
        expect(indexOfOption(args, '--ro-bind', target)).toBeGreaterThan(-1);
      } else {
        expect(args).not.toContain(target);
      }
    }
    expect(args.slice(-6)).toEqual([
      '--info-fd',
      '3',
      '--',
      '/bin/sh',
      '-c',
      'echo ready; exec sleep infinity',
    ]);
  });

  it('binds the scratch root after every other bind and covers it with a read-only tmpfs', () => {
    const args = holderArguments({ ...layout, writablePaths: ['/srv/a/b/c/d/e'] });
    const bind = args.indexOf(layout.scratchRoot);
    expect(args.slice(bind - 1, bind + 2)).toEqual([
      '--bind',
      layout.scratchRoot,
      SCRATCH_MOUNT_POINT,
    ]);
    expect(indexOfOption(args, '--bind', '/srv/a/b/c/d/e')).toBeLessThan(bind);
    expect(indexOfOption(args, '--tmpfs', SCRATCH_MOUNT_POINT)).toBe(bind + 2);
    expect(indexOfOption(args, '--remount-ro', SCRATCH_MOUNT_POINT)).toBe(bind + 4);
  });
});
