// Trust boundary: a kernel is exempt from the server's workspace (a long-lived process no
// workspace operation can hold); it starts only through `KernelProcess.start`, in a
// `PluginProcesses` of the host's sandbox and environment (see plugin-processes.ts
// for each part of the boundary it keeps), and its files in the host's state directory.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { abortedError, type ProcessLaunch, WorkspaceError } from '@agent-workspace/core';
import { importOptionalLibrary } from '../plugin/optional-library.js';
import { PluginProcesses, type PluginProcessesOptions } from '../plugin/plugin-processes.js';
import type { PluginLogger } from '../plugin/runtime-plugin.js';
import {
  type KernelConnection,
  MAX_IPC_PATH_BYTES,
  writeConnectionFile,
} from './connection-file.js';
import { JupyterCodec, type JupyterMessage } from './jupyter-codec.js';
import { KernelChannels, type ReceivingChannel, type ZeroMqModule } from './kernel-channels.js';
import { KernelProcess } from './kernel-process.js';
import { lastLines } from './last-lines.js';

/** Options of {@link Kernel.boot}. */
export interface KernelOptions {
  /** The Python interpreter with `ipykernel`. */
  pythonPath: string;
  /** The kernel's working directory. */
  cwd: string;
  /**
   * A private directory; each kernel gets a directory in it for its connection file and its
   * sockets (the `ipc` transport). In a sandbox it must be visible read-write inside at the
   * same path.
   */
  stateDir: string;
  /**
   * Where the kernel starts: in a command sandbox (its channels are Unix sockets in `stateDir`,
   * which reach into a sandbox with its own network namespace, where a TCP port on its loopback
   * would not) and with what environment. A plugin passes its host's; default this machine: no
   * sandbox, `childEnvironment()`.
   */
  processes?: PluginProcessesOptions | undefined;
  /** Longest wait for a kernel (also a restarted one) to answer, in milliseconds. */
  startTimeoutMs: number;
  logger?: PluginLogger | undefined;
  /** Called with each new kernel process's pid (the first, and after every restart). */
  onKernelStart?: ((pid: number) => void) | undefined;
}

/** Who waits for the replies and output of one request; see {@link Kernel.listeners}. */
export type KernelListener = (channel: ReceivingChannel, message: JupyterMessage) => void;

/** Wait for a kernel to exit after `shutdown_request`, then after SIGKILL, in ms. */
const SHUTDOWN_WAIT_MS = 1000;
const KILL_WAIT_MS = 5000;
/** Delay before another `kernel_info_request` while iopub is still silent, in ms. */
const HANDSHAKE_RETRY_MS = 100;

interface KernelParts {
  process: KernelProcess;
  zmq: ZeroMqModule;
  connection: KernelConnection;
  codec: JupyterCodec;
  dir: string;
  logger: PluginLogger | undefined;
}

/**
 * One IPython kernel process (`python -m ipykernel_launcher`) with its ZeroMQ channels and its
 * private directory (connection file, sockets). Messages go to whoever listens for their parent
 * request; {@link Kernel.stop} kills its process group and removes its files, which also happens
 * by itself when the process exits.
 */
export class Kernel {
  /** Its operating-system process. */
  readonly process: KernelProcess;
  /** Its shell, control, iopub and heartbeat sockets. */
  readonly channels: KernelChannels;
  /** Signs and builds its messages. */
  readonly codec: JupyterCodec;
  /** Who waits for replies and output, by the `msg_id` of the request. */
  readonly listeners = new Map<string, KernelListener>();
  /** Called once its process exits, expectedly or not. */
  readonly exitListeners = new Set<() => void>();
  readonly #dir: string;
  readonly #logger: PluginLogger | undefined;
  #stopping: string | undefined;
  #cleanedUp: Promise<void> | undefined;

  private constructor(parts: KernelParts) {
    this.process = parts.process;
    this.codec = parts.codec;
    this.#dir = parts.dir;
    this.#logger = parts.logger;
    this.channels = new KernelChannels({
      zmq: parts.zmq,
      connection: parts.connection,
      codec: parts.codec,
      onMessage: (channel, message) => {
        const parent = message.parentHeader?.msg_id;
        if (parent !== undefined) this.listeners.get(parent)?.(channel, message);
      },
      onInvalid: (channel, error) =>
        parts.logger?.warn({ channel, error }, 'dropped a python kernel message'),
    });
  }

  /**
   * Starts a kernel and waits until it answers a `kernel_info_request` on shell and iopub. A
   * kernel that exits or stays silent for `startTimeoutMs` is a `SPAWN_ERROR` carrying the tail
   * of its stderr; an abort of `signal` is `ABORTED`. Either way it is stopped first.
   */
  static async boot(options: KernelOptions, signal: AbortSignal): Promise<Kernel> {
    if (signal.aborted) throw abortedError(signal);
    // Imported here, not at the top: the package loads without the native addon.
    const zmq = await importOptionalLibrary('zeromq', () => import('zeromq'));
    const processes = new PluginProcesses(options.processes);
    const dir = await makeKernelDir(options.stateDir, processes.sandbox !== undefined);
    let connection: KernelConnection;
    try {
      connection = await writeConnectionFile(dir);
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
    const launch: ProcessLaunch = {
      file: options.pythonPath,
      args: ['-m', 'ipykernel_launcher', '-f', connection.file, '--HistoryManager.enabled=False'],
      cwd: options.cwd,
    };
    const codec = new JupyterCodec(connection.key);
    // In a sandbox the group's leader is the host-side launch (nsenter); the kernel stays in its
    // group, so SIGINT and SIGKILL to the group reach it as before.
    const kernelProcess = KernelProcess.start({
      launch,
      processes,
      env: {
        // The kernel exits by itself once orphaned (ipykernel needs this set, then polls for
        // being reparented to pid 1; the value is not read, so a host pid does in a sandbox).
        JPY_PARENT_PID: String(process.pid),
        IPYTHONDIR: processes.environment.IPYTHONDIR ?? path.join(options.stateDir, 'ipython'),
        // Silences debugpy's warning about frozen modules, which would bury real errors.
        PYDEVD_DISABLE_FILE_VALIDATION: '1',
      },
    });
    if (kernelProcess.pid === undefined) {
      // Not started at all (a sandbox that is gone: SANDBOX_EXITED; descriptors: SPAWN_ERROR).
      const { error } = await kernelProcess.exited;
      await rm(dir, { recursive: true, force: true });
      if (WorkspaceError.isInstance(error)) {
        throw new WorkspaceError({
          code: error.code,
          message: `the python kernel could not be started (${error.message})`,
          cause: error,
          details: error.details,
        });
      }
    }
    const kernel = new Kernel({
      process: kernelProcess,
      zmq,
      connection,
      codec,
      dir,
      logger: options.logger,
    });
    void kernelProcess.exited.then(() => kernel.#exited());
    if (kernelProcess.pid !== undefined) options.onKernelStart?.(kernelProcess.pid);
    try {
      await kernel.#handshake(options, signal);
    } catch (error) {
      await kernel.stop('the kernel did not start', false);
      throw error;
    }
    options.logger?.info({ pid: kernelProcess.pid }, 'python kernel started');
    return kernel;
  }

  /** Why it is being stopped on purpose; `undefined` while it should be running. */
  get stopping(): string | undefined {
    return this.#stopping;
  }

  /** Settles once its channels are closed and its files removed; `undefined` before that began. */
  get cleanedUp(): Promise<void> | undefined {
    return this.#cleanedUp;
  }

  /**
   * Stops it for `reason` (politely first, with `shutdown_request`, when `graceful`), kills its
   * process group, and removes its files.
   */
  async stop(reason: string, graceful: boolean): Promise<void> {
    this.#stopping ??= reason;
    if (graceful && this.process.alive) {
      const request = this.codec.request('shutdown_request', { restart: false });
      this.channels.send('control', request).catch(() => {});
      await Promise.race([this.process.exited, delay(SHUTDOWN_WAIT_MS)]);
    }
    await this.process.kill(KILL_WAIT_MS);
    await this.#cleanUp();
  }

  /** Resolves once it answered `kernel_info_request` and iopub is known to be subscribed. */
  #handshake(options: KernelOptions, signal: AbortSignal): Promise<void> {
    const timeoutMs = options.startTimeoutMs;
    return new Promise<void>((resolve, reject) => {
      const ids: string[] = [];
      let retry: NodeJS.Timeout | undefined;
      let iopub = false;
      let replied = false;
      const end = (error?: Error) => {
        clearTimeout(timer);
        clearTimeout(retry);
        signal.removeEventListener('abort', onAbort);
        this.exitListeners.delete(onExit);
        for (const id of ids) this.listeners.delete(id);
        if (error === undefined) resolve();
        else reject(error);
      };
      const fail = (reason: string) => {
        const stderr = this.process.stderrTail();
        end(
          new WorkspaceError({
            code: 'SPAWN_ERROR',
            message: `the python kernel ${reason}${stderr ? `; its stderr ends:\n${stderr}` : ''}`,
            details: { pythonPath: options.pythonPath, stderr },
          }),
        );
      };
      const listener: KernelListener = (channel, message) => {
        if (channel === 'iopub') iopub = true;
        else if (message.header.msg_type === 'kernel_info_reply') replied = true;
        else return;
        if (iopub && replied) end();
        // A reply but no iopub message yet: the subscription may not be up; ask again.
        else if (replied) retry ??= setTimeout(send, HANDSHAKE_RETRY_MS);
      };
      const send = () => {
        retry = undefined;
        const request = this.codec.request('kernel_info_request', {});
        ids.push(request.header.msg_id);
        this.listeners.set(request.header.msg_id, listener);
        this.channels.send('shell', request).catch(() => {});
      };
      const onExit = () => fail(this.process.describeExit());
      const onAbort = () => end(abortedError(signal));
      const timer = setTimeout(
        () => fail(`did not answer within ${Math.round(timeoutMs / 1000)} s`),
        timeoutMs,
      );
      signal.addEventListener('abort', onAbort, { once: true });
      this.exitListeners.add(onExit);
      if (signal.aborted) onAbort();
      else send();
    });
  }

  /** Called once when its process exits, expectedly or not. */
  #exited(): void {
    if (this.#stopping === undefined) {
      this.#logger?.warn(
        { pid: this.process.pid, stderr: lastLines(this.process.stderrTail(), 10) },
        `python kernel ${this.process.describeExit()}`,
      );
    }
    for (const listener of [...this.exitListeners]) listener();
    void this.#cleanUp();
  }

  #cleanUp(): Promise<void> {
    this.#cleanedUp ??= (async () => {
      this.channels.close();
      await rm(this.#dir, { recursive: true, force: true });
    })();
    return this.#cleanedUp;
  }
}

/**
 * A new private directory for one kernel: in `stateDir`, or (outside a sandbox, which sees only
 * `stateDir`) the temp dir if that is too deep for socket paths.
 */
async function makeKernelDir(stateDir: string, sandboxed: boolean): Promise<string> {
  // `<dir>/kernel-XXXXXX/k-5` must fit a Unix socket path.
  const fits = Buffer.byteLength(stateDir) + '/kernel-XXXXXX/k-5'.length <= MAX_IPC_PATH_BYTES;
  if (!fits && sandboxed) {
    throw new WorkspaceError({
      code: 'INVALID_CONFIG',
      message: `the python plugin's state directory is too deep for the kernel's Unix socket paths (at most ${MAX_IPC_PATH_BYTES - '/kernel-XXXXXX/k-5'.length} bytes in a sandbox): ${stateDir}`,
      details: { stateDir },
    });
  }
  const parent = fits ? stateDir : os.tmpdir();
  await mkdir(parent, { recursive: true, mode: 0o700 });
  return mkdtemp(path.join(parent, 'kernel-'));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
