import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** What the holder of a {@link BubblewrapSandbox} is built from (validated, absolute paths). */
export interface HolderLayout {
  workingDir: string;
  network: boolean;
  readOnlyPaths: readonly string[];
  writablePaths: readonly string[];
  /** Hidden behind an empty tmpfs unless the working dir contains it. */
  home: string | undefined;
  /** Give bwrap `--unshare-user --uid 0 --gid 0` (required when not running as root). */
  userNamespace: boolean;
  /** Absolute path of `sh`, the payload's shell. */
  shell: string;
  /** Host directory of the sandbox's scratches, bound at {@link SCRATCH_MOUNT_POINT}, hidden. */
  scratchRoot: string;
}

/**
 * Where the holder binds the scratch root, under an empty read-only tmpfs: commands see an empty
 * directory; a launch with a scratch uncovers it in a mount namespace of its own (see
 * `enterSandboxPrefix`) and sees only its scratch there.
 */
export const SCRATCH_MOUNT_POINT = '/.agent-workspace-scratch';

/** Line the holder's payload prints once the sandbox is set up. */
export const HOLDER_READY_LINE = 'ready';

/** Top-level system directories that are links into /usr on merged-/usr hosts. */
const SYSTEM_LINKS = ['/bin', '/lib', '/lib32', '/lib64', '/libx32', '/sbin'];

/**
 * The bwrap arguments of a sandbox holder: new pid, ipc and uts namespaces (and net when
 * `network` is off), the system read-only, a fresh /dev, /proc and /tmp, HOME hidden, the
 * working dir and extra paths bound, the scratch root bound and covered (last, so that no other
 * bind hides it), and a payload that prints {@link HOLDER_READY_LINE} then
 * sleeps forever. bwrap's pid-1 init reaps orphans; `--info-fd 3` reports its host pid.
 *
 * Mounts apply in order: the tmpfs of /tmp and HOME come before the binds (the working dir may
 * lie under either), and binds go shortest path first so a nested one overrides its parent.
 */
export function holderArguments(layout: HolderLayout): string[] {
  const args = [
    ...(layout.userNamespace ? ['--unshare-user', '--uid', '0', '--gid', '0'] : []),
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    ...(layout.network ? [] : ['--unshare-net']),
    '--die-with-parent',
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/usr',
    '/usr',
  ];
  for (const link of SYSTEM_LINKS) args.push(...systemEntry(link));
  args.push('--ro-bind', '/etc', '/etc');
  if (isDirectory('/opt')) args.push('--ro-bind', '/opt', '/opt');
  if (layout.network) args.push(...resolverBinding());
  args.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  const { home, workingDir } = layout;
  if (home !== undefined && home !== '/' && !isSameOrInside(home, workingDir)) {
    args.push('--tmpfs', home);
  }
  const binds = [
    ...layout.readOnlyPaths.map((target) => ({ option: '--ro-bind', target })),
    ...layout.writablePaths.map((target) => ({ option: '--bind', target })),
    { option: '--bind', target: workingDir },
  ].sort((a, b) => depth(a.target) - depth(b.target));
  for (const { option, target } of binds) args.push(option, target, target);
  args.push('--bind', layout.scratchRoot, SCRATCH_MOUNT_POINT);
  args.push('--tmpfs', SCRATCH_MOUNT_POINT, '--remount-ro', SCRATCH_MOUNT_POINT);
  args.push(
    '--info-fd',
    '3',
    '--',
    layout.shell,
    '-c',
    `echo ${HOLDER_READY_LINE}; exec sleep infinity`,
  );
  return args;
}

/** How a top-level system path appears inside: the same link, read-only, or not at all. */
function systemEntry(target: string): string[] {
  try {
    const stats = lstatSync(target);
    if (stats.isSymbolicLink()) return ['--symlink', readlinkSync(target), target];
    if (stats.isDirectory()) return ['--ro-bind', target, target];
  } catch {
    // Absent on this host.
  }
  return [];
}

/**
 * A read-only bind of the file /etc/resolv.conf links to when that lies outside /etc and /usr
 * (systemd-resolved's /run/systemd/resolve/...), so name resolution works inside.
 */
function resolverBinding(): string[] {
  try {
    const target = realpathSync('/etc/resolv.conf');
    if (isSameOrInside(target, '/etc') || isSameOrInside(target, '/usr')) return [];
    return ['--ro-bind', target, target];
  } catch {
    return [];
  }
}

function isDirectory(target: string): boolean {
  try {
    return lstatSync(target).isDirectory();
  } catch {
    return false;
  }
}

/** True when absolute `candidate` is `parent` or below it. */
export function isSameOrInside(candidate: string, parent: string): boolean {
  const relative = path.posix.relative(parent, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.posix.isAbsolute(relative));
}

function depth(target: string): number {
  return target.split('/').filter(Boolean).length;
}
