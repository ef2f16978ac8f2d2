import path from 'node:path';

/**
 * Where a path an action names lies, from the harmless to the worst:
 * - `inside`: in the working directory (relative paths resolve against it);
 * - `scratch`: a temp directory (`/tmp`, `/var/tmp`) or a harmless device (`/dev/null`, the
 *   standard streams);
 * - `outside`: elsewhere on the machine;
 * - `system`: the root, a top-level directory (`/etc`, `/usr`, `/home`, …) itself or something
 *   in the system's directories (`/etc`, `/usr`, `/bin`, `/sbin`, `/lib*`, `/boot`, `/sys`,
 *   `/proc`, `/dev`, `/var` but its temp), or the home directory (`~`, `$HOME`) itself.
 */
export type PathScope = 'inside' | 'scratch' | 'outside' | 'system';

const SCRATCH = ['/tmp', '/var/tmp', '/dev/shm'];
const HARMLESS_DEVICES = new Set([
  '/dev/null',
  '/dev/zero',
  '/dev/stdout',
  '/dev/stderr',
  '/dev/stdin',
  '/dev/tty',
  '/dev/random',
  '/dev/urandom',
]);
const SYSTEM = [
  '/etc',
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/boot',
  '/sys',
  '/proc',
  '/dev',
  '/var',
  '/root',
  '/opt',
  '/srv',
];
const HOME = /^(?:~|\$HOME|\$\{HOME\})(?=\/|$)/;

/** Where `target` lies relative to `workingDir` (see {@link PathScope}). */
export function pathScope(target: string, workingDir: string): PathScope {
  const home = HOME.exec(target);
  if (home !== null) {
    const rest = target.slice(home[0].length).replace(/^\/+/, '');
    return rest === '' || rest === '*' || rest === '.' ? 'system' : 'outside';
  }
  if (target.startsWith('$') || target.startsWith('~')) return 'outside'; // another user, a variable
  const resolved = path.posix.resolve(workingDir, target);
  const base = path.posix.resolve(workingDir);
  if (base !== '/' && (resolved === base || resolved.startsWith(`${base}/`))) return 'inside';
  if (HARMLESS_DEVICES.has(resolved) || /^\/dev\/fd\/\d+$/.test(resolved)) return 'scratch';
  if (SCRATCH.some((dir) => resolved.startsWith(`${dir}/`))) return 'scratch';
  if (resolved === '/' || path.posix.dirname(resolved) === '/') return 'system';
  if (SYSTEM.some((dir) => resolved === dir || resolved.startsWith(`${dir}/`))) return 'system';
  return 'outside';
}

/** True for a glob that matches everything in a directory (`*`, `.*`, `./*`, `/*`, `~/*`…). */
export function isBroadGlob(target: string): boolean {
  return /^(?:\.\/|\/|~\/|\$HOME\/)?(?:\.?\*|\*\.\*|\.\[!.\]\*)$/.test(target);
}
