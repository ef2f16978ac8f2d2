import type { SandboxTools } from './sandbox-tools.js';

/**
 * Signals that reach a command's whole process group but must not end the relays between this
 * process and the command (nsenter and a converting `sh`): the command alone decides whether
 * it dies of them, and its own exit status comes back.
 */
const RELAYED_SIGNALS = 'HUP,INT,QUIT,ABRT,USR1,USR2,PIPE,ALRM,TERM,XCPU,XFSZ,VTALRM,PROF';

/**
 * Script of the `sh` between nsenter and the command: it ignores the relayed signals, so a
 * command killed by one comes back as exit status 128 + n (nsenter cannot re-raise a signal it
 * ignores). Its own "Terminated" notices go to /dev/null; the command, redirected in its own
 * (subshell) process, keeps the real stderr. The saved stderr lives on descriptor 9, so that
 * descriptors 3 and up reach the program untouched (Chromium's `--remote-debugging-pipe` uses
 * 3 and 4).
 */
const STATUS_CONVERTER = 'exec 9>&2 2>/dev/null; (exec "$@" 2>&9 9>&-); exit $?';

/**
 * Script run between nsenter and setpriv (still with the capabilities of the sandbox's user
 * namespace) in a mount namespace of the launch's own: uncovers the scratch root at the mount
 * point and binds the launch's scratch over it, so the launch sees that scratch alone.
 */
const SCRATCH_BINDER =
  'umount=$1 mount=$2 point=$3 name=$4; shift 4; ' +
  '"$umount" -n "$point" && "$mount" -n --bind "$point/$name" "$point" && exec "$@"';

/** What {@link enterSandboxPrefix} builds the launch from. */
export interface EnterSandboxOptions {
  tools: SandboxTools;
  /** Host pid of the sandbox's pid 1, whose namespaces the launch enters. */
  holderPid: number;
  /** Enter the sandbox's user namespace too (it was started by a non-root user). */
  userNamespace: boolean;
  /** `false` when the sandbox has a network namespace of its own, which is entered too. */
  network: boolean;
  /**
   * Show the launch this scratch: the name of its directory in the scratch root, which the
   * holder binds at `mountPoint` under a cover.
   */
  scratch?: { mountPoint: string; name: string } | undefined;
}

/**
 * Every argument of the host-side launch (run by `env`) before the command's cwd, program and
 * arguments: `env` ignoring the relayed signals, nsenter into the holder's namespaces and root,
 * for a launch with a scratch a mount namespace of its own (`unshare`) and the
 * {@link SCRATCH_BINDER}, setpriv dropping every capability with `no_new_privs`, the status
 * converter, then `env --default-signal --chdir`.
 */
export function enterSandboxPrefix(options: EnterSandboxOptions): string[] {
  const { tools, scratch } = options;
  const binder = scratch
    ? [
        tools.unshare,
        '--mount',
        '--propagation',
        'private',
        '--',
        tools.sh,
        '-c',
        SCRATCH_BINDER,
        'sh',
        tools.umount,
        tools.mount,
        scratch.mountPoint,
        scratch.name,
      ]
    : [];
  return [
    `--ignore-signal=${RELAYED_SIGNALS}`,
    tools.nsenter,
    '--target',
    String(options.holderPid),
    ...(options.userNamespace ? ['--user', '--preserve-credentials'] : []),
    '--mount',
    '--pid',
    '--uts',
    '--ipc',
    ...(options.network ? [] : ['--net']),
    '--root',
    '--',
    ...binder,
    tools.setpriv,
    '--no-new-privs',
    '--bounding-set',
    '-all',
    '--inh-caps',
    '-all',
    '--ambient-caps',
    '-all',
    '--',
    tools.sh,
    '-c',
    STATUS_CONVERTER,
    'sh',
    tools.env,
    '--default-signal',
    '--chdir',
  ];
}
