import { readlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { invalidArgument } from '../errors/invalid-argument.js';
import { WorkspaceError } from '../errors/workspace-error.js';
import { SYSTEM_PATH } from '../internal/process/find-executable.js';
import { signalProcessGroup } from '../internal/process/kill-process-group.js';
import { spawnChild } from '../internal/process/spawn-child.js';
import type {
  CommandSandbox,
  ProcessLaunch,
  SandboxScratch,
  WrapOptions,
} from '../workspace/command-sandbox.js';
import { holderArguments, SCRATCH_MOUNT_POINT } from './bubblewrap-arguments.js';
import type {
  BubblewrapSandboxOptions,
  StartBubblewrapSandboxOptions,
} from './bubblewrap-sandbox-options.js';
import { BubblewrapScratch } from './bubblewrap-scratch.js';
import type { EgressAllowList } from './egress-allow-list.js';
import { enterSandboxPrefix } from './enter-sandbox-prefix.js';
import { reapScratchRoots, scratchRootPrefix } from './reap-scratch-roots.js';
import { assertEgressSource, egressAllowList, SandboxEgress } from './sandbox-egress.js';
import { existingPath, existingPaths } from './sandbox-paths.js';
import { type SandboxTools, sandboxTools, sandboxUnsupportedReason } from './sandbox-tools.js';
import { type SandboxHolder, startHolder } from './start-holder.js';

export type { BubblewrapSandboxOptions, StartBubblewrapSandboxOptions };

/** How long `close()` waits for bwrap to exit after its pid 1 was killed, before killing it. */
const HOLDER_EXIT_TIMEOUT_MS = 5_000;

/**
 * A command sandbox on Linux with bubblewrap: one long-lived set of namespaces per instance that
 * every command enters, so background processes survive their command and are seen by the next.
 *
 * - Inside: the working dir (read-write), `/usr`, `/etc`, `/opt` and the `/bin`, `/lib*`,
 *   `/sbin` links or directories (read-only), a fresh `/dev`, `/proc` and empty `/tmp`; HOME is
 *   an empty tmpfs. Other user data (other home directories, the host's `/tmp`) is not there.
 * - Own pid, ipc and uts namespaces; with `network: false` also an own network namespace with
 *   only loopback; with `network: { allowHosts }` an own network namespace whose only way out
 *   is an HTTP/HTTPS proxy in this process, reached through a bridge on the sandbox's loopback
 *   (see {@link BubblewrapSandbox.proxyEnvironment}).
 * - Commands run without capabilities and with `no_new_privs`. Started by root they run as root
 *   (uid 0, no capabilities); started by another user, bwrap makes a user namespace and
 *   commands see themselves as uid 0 inside it, mapped to that user (like rootless containers).
 * - Scratches ({@link BubblewrapSandbox.createScratch}): directories of a private host directory
 *   (in the host's temporary directory, removed on close or, after a kill, by the next start),
 *   bound under an empty read-only tmpfs that a launch with a scratch lifts in a mount
 *   namespace of its own, where it sees its scratch alone; other commands reach it only through
 *   that launch's `/proc/<pid>` while it runs.
 * - The sandbox dies with this process. Entering costs about 3 ms per command.
 */
export class BubblewrapSandbox implements CommandSandbox {
  readonly workingDir: string;
  /** `true` with the host's network; `false` with loopback only or an egress policy. */
  readonly network: boolean;
  /** The egress policy's entries, normalised (`example.com:8080`); `undefined` without one. */
  readonly allowHosts: readonly string[] | undefined;
  /** Host pid of the sandbox's pid 1; every process inside is gone once it is. */
  readonly pid: number;
  /** True when commands run in a user namespace (the sandbox was started by a non-root user). */
  readonly userNamespace: boolean;
  readonly #holder: SandboxHolder;
  /** Every argument of the host-side launch before the command's cwd, program and arguments. */
  readonly #enterPrefix: readonly string[];
  readonly #env: string;
  readonly #tools: SandboxTools;
  readonly #scratchRoot: string;
  /** The scratches made here (`wrap` accepts no other). */
  readonly #scratches = new WeakSet<BubblewrapScratch>();
  readonly #egress: SandboxEgress | undefined;
  #closing: Promise<void> | undefined;
  /** Set once the holder exited: nothing can enter any more. */
  #exited = false;

  private constructor(
    options: {
      workingDir: string;
      network: boolean;
      allowList: EgressAllowList | undefined;
      userNamespace: boolean;
      scratchRoot: string;
    },
    holder: SandboxHolder,
    tools: SandboxTools,
    egress: SandboxEgress | undefined,
  ) {
    this.workingDir = options.workingDir;
    this.network = options.network;
    this.allowHosts = options.allowList?.entries.map((entry) => entry.entry);
    this.#egress = egress;
    this.userNamespace = options.userNamespace;
    this.pid = holder.pid;
    this.#holder = holder;
    this.#env = tools.env;
    this.#tools = tools;
    this.#scratchRoot = options.scratchRoot;
    holder.process.exit.then(
      () => {
        this.#exited = true;
      },
      () => {},
    );
    this.#enterPrefix = enterSandboxPrefix({
      tools,
      holderPid: holder.pid,
      userNamespace: options.userNamespace,
      network: options.network,
    });
  }

  /**
   * Why no bubblewrap sandbox can run here (not Linux, or bwrap, nsenter, setpriv, env or sh
   * missing), or `undefined` when it can.
   */
  static unsupportedReason(): string | undefined {
    return sandboxUnsupportedReason();
  }

  /**
   * Starts the sandbox and waits until commands can enter it.
   *
   * With an egress policy it also starts the proxy (the proxy library loads then) and the
   * bridge inside, and waits until the bridge listens.
   *
   * @throws WorkspaceError `NOT_SUPPORTED` off Linux or without bwrap / util-linux;
   * `INVALID_ARGUMENT` naming the field for a relative or missing path, a bad `network` or
   * `network.allowHosts[i]` entry; `SPAWN_ERROR` with bwrap's (or the bridge's) standard error
   * when the sandbox cannot be set up; `ABORTED` when `signal` fires.
   */
  static async start(options: StartBubblewrapSandboxOptions): Promise<BubblewrapSandbox> {
    const tools = sandboxTools();
    const workingDir = await existingPath(options.workingDir, 'workingDir', true);
    if (workingDir === '/') throw invalidArgument('workingDir', 'must not be /');
    const readOnlyPaths = await existingPaths(options.readOnlyPaths, 'readOnlyPaths');
    const writablePaths = await existingPaths(options.writablePaths, 'writablePaths');
    if ((options as { allowHosts?: unknown }).allowHosts !== undefined) {
      // A caller that spreads a config of its own would otherwise get the host network silently.
      throw invalidArgument('allowHosts', 'is not an option; give network: { allowHosts }');
    }
    const allowList = egressAllowList(options.network);
    const network = allowList === undefined && options.network !== false;
    const onRefused = options.onEgressRefused;
    if (onRefused !== undefined && typeof onRefused !== 'function') {
      throw invalidArgument('onEgressRefused', `must be a function, got ${typeof onRefused}`);
    }
    const egress =
      allowList === undefined ? undefined : await SandboxEgress.start({ allowList, onRefused });
    readOnlyPaths.push(...(egress?.readOnlyPaths ?? []));
    let sandbox: BubblewrapSandbox | undefined;
    let scratchRoot: string | undefined;
    try {
      await reapScratchRoots(os.tmpdir());
      scratchRoot = await mkdtemp(scratchRootPrefix(os.tmpdir()));
      const home = process.env.HOME;
      const holder = await startHolder({
        bwrap: tools.bwrap,
        args: holderArguments({
          workingDir,
          network,
          readOnlyPaths,
          writablePaths,
          home: home && path.posix.isAbsolute(home) ? path.posix.resolve(home) : undefined,
          userNamespace: process.geteuid?.() !== 0,
          shell: tools.sh,
          scratchRoot,
        }),
        signal: options.signal,
      });
      const userNamespace = inOtherUserNamespace(holder.pid);
      sandbox = new BubblewrapSandbox(
        { workingDir, network, allowList, userNamespace, scratchRoot },
        holder,
        tools,
        egress,
      );
      await sandbox.#probe(tools.sh);
      await egress?.bridge(sandbox, options.signal);
    } catch (error) {
      await (sandbox ? sandbox.close() : egress?.close());
      if (scratchRoot !== undefined) await rm(scratchRoot, { recursive: true, force: true });
      throw error;
    }
    return sandbox;
  }

  /**
   * The launch that runs `launch` inside the sandbox (synchronous, no I/O); with a scratch, in a
   * mount namespace of its own where the scratch is at `scratch.path`.
   *
   * @throws WorkspaceError `SANDBOX_EXITED` after `close()` or once the sandbox died;
   * `INVALID_ARGUMENT` (field `scratch`) for a scratch not made here or already removed.
   */
  wrap(launch: ProcessLaunch, options?: WrapOptions): ProcessLaunch {
    this.#assertRunning();
    const scratch = options?.scratch;
    let prefix = this.#enterPrefix;
    if (scratch !== undefined) {
      if (!(scratch instanceof BubblewrapScratch) || !this.#scratches.has(scratch)) {
        throw invalidArgument('scratch', 'is not a scratch of this sandbox');
      }
      if (scratch.removed) throw invalidArgument('scratch', 'was removed');
      prefix = enterSandboxPrefix({
        tools: this.#tools,
        holderPid: this.pid,
        userNamespace: this.userNamespace,
        network: this.network,
        scratch: { mountPoint: SCRATCH_MOUNT_POINT, name: scratch.name },
      });
    }
    return {
      file: this.#env,
      args: [...prefix, launch.cwd, launch.file, ...launch.args],
      cwd: this.workingDir,
    };
  }

  /**
   * Makes an empty scratch on the host's disk that only launches wrapped with it see, at
   * `scratch.path` (read-write); removed by `remove()` or when the sandbox closes.
   *
   * @throws WorkspaceError `SANDBOX_EXITED` after `close()` or once the sandbox died.
   */
  async createScratch(): Promise<SandboxScratch> {
    this.#assertRunning();
    const scratch = await BubblewrapScratch.create(this.#scratchRoot);
    this.#scratches.add(scratch);
    return scratch;
  }

  /**
   * Variables that send a command's HTTP and HTTPS clients through the egress proxy, with
   * `source` as the proxy user name that refusals report: `HTTP_PROXY`, `HTTPS_PROXY`,
   * `http_proxy`, `https_proxy` = `http://<source>@127.0.0.1:<bridge port>`; `NO_PROXY`,
   * `no_proxy` = `localhost,127.0.0.1,::1` (the sandbox's own loopback, reached directly; so a
   * listed loopback host of this machine is reached only by a client that bypasses `NO_PROXY`,
   * e.g. `curl --noproxy ''`); `NODE_USE_ENV_PROXY=1` (Node 24 and later honour the others
   * then). No `ALL_PROXY`: clients read it as SOCKS as often as HTTP. `{}` without a policy.
   *
   * @throws WorkspaceError `INVALID_ARGUMENT` (field `source`) unless `source` is 1 to 64 of
   * `A-Z a-z 0-9 . _ ~ -`.
   */
  proxyEnvironment(source: string): Record<string, string> {
    assertEgressSource(source);
    return this.#egress?.environment(source) ?? {};
  }

  /**
   * Kills every process in the sandbox (the egress bridge too) and waits for the holder to exit,
   * then stops the egress proxy and removes its socket directory, and removes the scratches.
   * Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const holder = this.#holder.process;
      // Unref'd while the sandbox lives; keep this process alive until the holder is gone.
      holder.ref();
      // When pid 1 of a pid namespace dies, the kernel kills every other process in it; bwrap
      // reaps it and exits. Killing bwrap as well would leave pid 1 to the host's reaper.
      signalProcess(this.pid, 'SIGKILL');
      let timer: NodeJS.Timeout | undefined;
      const exited = await Promise.race([
        holder.exit.then(
          () => true,
          () => true,
        ),
        new Promise<false>((resolve) => {
          timer = setTimeout(() => resolve(false), HOLDER_EXIT_TIMEOUT_MS);
        }),
      ]);
      clearTimeout(timer);
      if (!exited && holder.pid !== undefined) {
        signalProcessGroup(holder.pid, 'SIGKILL');
        await holder.exit.catch(() => {});
      }
      await this.#egress?.close();
      await rm(this.#scratchRoot, { recursive: true, force: true });
    })();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** @throws WorkspaceError `SANDBOX_EXITED` after `close()` or once the holder exited. */
  #assertRunning(): void {
    if (!this.#closing && !this.#exited) return;
    const stderr = this.#holder.stderr().trim();
    throw new WorkspaceError({
      code: 'SANDBOX_EXITED',
      message: this.#closing
        ? 'the command sandbox is closed'
        : `the command sandbox exited${stderr ? `: ${stderr}` : ''}`,
      details: { closed: this.#closing !== undefined, stderr },
    });
  }

  /** Enters the sandbox once, so a sandbox that commands cannot join fails at start. */
  async #probe(shell: string): Promise<void> {
    const child = spawnChild({
      file: shell,
      args: ['-c', ':'],
      cwd: this.workingDir,
      env: { PATH: SYSTEM_PATH },
      sandbox: this,
    });
    let stderr = '';
    child.stdout?.resume();
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const { code, signal } = await child.exit;
    if (code === 0) return;
    throw new WorkspaceError({
      code: 'SPAWN_ERROR',
      message: `cannot enter the command sandbox (${signal ?? `exit code ${code}`}): ${stderr.trim() || this.#holder.stderr().trim()}`,
      details: { stderr },
    });
  }
}

/** Sends `signal` to one process; does nothing when it is gone. */
function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: already gone.
  }
}

/** Whether `pid` is in another user namespace than this process (bwrap made one). */
function inOtherUserNamespace(pid: number): boolean {
  try {
    return readlinkSync(`/proc/${pid}/ns/user`) !== readlinkSync('/proc/self/ns/user');
  } catch {
    return process.geteuid?.() !== 0;
  }
}
