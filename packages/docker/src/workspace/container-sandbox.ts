import { MAX_ALLOW_HOST_LENGTH, MAX_ALLOW_HOSTS } from '@agent-workspace/protocol';
import type Docker from 'dockerode';
import { z } from 'zod';

/**
 * The command sandbox of the agent-server in a container: `true` (host network of the
 * container for sandboxed code), `{ network: false }` (loopback only) or `{ allowHosts }` (only
 * these hosts, through the agent-server's egress proxy).
 */
export const containerSandboxSchema = z.union([
  z.literal(true),
  z
    .strictObject({
      /** Network of sandboxed code; `false` leaves it only its own loopback. Default true. */
      network: z.boolean().optional(),
      /** Egress allow-list, `host` or `host:port` (ports 80 and 443 without one). */
      allowHosts: z
        .array(z.string().min(1).max(MAX_ALLOW_HOST_LENGTH))
        .max(MAX_ALLOW_HOSTS)
        .optional(),
    })
    .refine((sandbox) => !(sandbox.network === false && sandbox.allowHosts !== undefined), {
      message: 'give either network: false or allowHosts, not both',
      path: ['allowHosts'],
    }),
]);

/** Sandbox options of a container's agent-server (see {@link containerSandboxSchema}). */
export type ContainerSandbox = z.input<typeof containerSandboxSchema>;

/**
 * Syscalls a sandboxed container refuses (EPERM): what Docker's default profile keeps from an
 * unprivileged container besides namespaces — kernel modules and kexec, clocks, swap and
 * accounting, keyrings, BPF and perf, userfaultfd, io_uring, handle-based opens, the new mount
 * API — while `clone`/`unshare`/`setns`/`mount`/`pivot_root` stay allowed, so that bubblewrap can
 * build the sandbox's namespaces inside a user namespace (they act only on namespaces that user
 * namespace owns: the container gets no capability for them).
 */
const REFUSED_SYSCALLS = [
  'acct',
  'add_key',
  'adjtimex',
  'bpf',
  'clock_adjtime',
  'clock_settime',
  'delete_module',
  'fanotify_init',
  'finit_module',
  'fsconfig',
  'fsmount',
  'fsopen',
  'fspick',
  'init_module',
  'io_uring_enter',
  'io_uring_register',
  'io_uring_setup',
  'ioperm',
  'iopl',
  'kcmp',
  'kexec_file_load',
  'kexec_load',
  'keyctl',
  'lookup_dcookie',
  'mount_setattr',
  'move_mount',
  'name_to_handle_at',
  'nfsservctl',
  'open_by_handle_at',
  'open_tree',
  'perf_event_open',
  'quotactl',
  'reboot',
  'request_key',
  'settimeofday',
  'swapoff',
  'swapon',
  'syslog',
  'userfaultfd',
  'uselib',
  'vm86',
  'vm86old',
] as const;

/** The seccomp profile of a container whose agent-server runs a bubblewrap sandbox. */
export const SANDBOX_SECCOMP_PROFILE = JSON.stringify({
  defaultAction: 'SCMP_ACT_ALLOW',
  syscalls: [{ names: REFUSED_SYSCALLS, action: 'SCMP_ACT_ERRNO', errnoRet: 1 }],
});

/**
 * What a container needs so that its agent-server's bubblewrap sandbox can start: the seccomp
 * profile above instead of Docker's default (which refuses user namespaces),
 * `no-new-privileges`, and no masking of `/proc` paths (a masked `/proc` cannot be mounted
 * afresh in the sandbox's pid namespace). Run the container as an unprivileged user (the image
 * does): the unmasked `/proc` files are then as closed to it as on a host.
 */
export function sandboxHostConfig(): Pick<
  Docker.HostConfig,
  'SecurityOpt' | 'MaskedPaths' | 'ReadonlyPaths'
> {
  return {
    SecurityOpt: [`seccomp=${SANDBOX_SECCOMP_PROFILE}`, 'no-new-privileges'],
    MaskedPaths: [],
    ReadonlyPaths: [],
  };
}

/** The agent-server flags of a sandbox: `--sandbox`, then `--allow-host` each or `--no-sandbox-network`. */
export function sandboxServerFlags(sandbox: ContainerSandbox): string[] {
  if (sandbox === true) return ['--sandbox'];
  if (sandbox.allowHosts !== undefined) {
    return ['--sandbox', ...sandbox.allowHosts.flatMap((host) => ['--allow-host', host])];
  }
  return sandbox.network === false ? ['--sandbox', '--no-sandbox-network'] : ['--sandbox'];
}
