import { execFile } from 'node:child_process';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import {
  anySignal,
  childEnvironment,
  findExecutable,
  positiveOption,
  SYSTEM_PATH,
} from '@agent-workspace/core/internal';
import {
  type IPythonRunCellArgs,
  type IPythonRunCellObservationWire,
  ipythonRunCellArgsSchema,
} from '@agent-workspace/protocol';
import { formatMebibytes } from '../memory/memory-monitor.js';
import { processTree, readProcessTable, readResidentBytes } from '../memory/read-process-table.js';
import { assertSandboxWritable } from '../plugin/assert-sandbox-writable.js';
import { optionalLibraryRequirement } from '../plugin/optional-library.js';
import type { PluginRequirement } from '../plugin/plugin-requirement.js';
import type {
  PluginAction,
  PluginActionContext,
  PluginContext,
  PluginHealth,
  RuntimePlugin,
} from '../plugin/runtime-plugin.js';
import { type CellResult, KernelSession } from './kernel-session.js';

/** Options of {@link createPythonPlugin}. */
export interface PythonPluginOptions {
  /**
   * The interpreter with `ipykernel`. Default: `$AGENT_WORKSPACE_PYTHON` when set, else
   * `/usr/bin/python3`, else `python3` on `PATH`.
   */
  pythonPath?: string | undefined;
  /** Bound on the kernel's start and on every restart, in milliseconds. Default 60 000. */
  startTimeoutMs?: number | undefined;
}

const DEFAULT_START_TIMEOUT_MS = 60_000;
/** Bound on the `import ipykernel` check, in milliseconds. */
const CHECK_TIMEOUT_MS = 30_000;
/** Bound on a health check's heartbeat, in milliseconds. */
const HEARTBEAT_TIMEOUT_MS = 2_000;
const INSTALL_IPYKERNEL = 'apt-get install -y python3-ipykernel';

type MemoryUsage = { rssBytes: number; limitBytes: number };

/**
 * The `python` runtime plugin: OpenHands' `run_ipython` action on a persistent IPython kernel
 * whose working directory is the workspace. Variables live from cell to cell until the kernel
 * dies or is restarted (a cell past its time that ignores the interrupt, a kernel over the memory
 * limit); the observation then says the state is lost.
 *
 * The kernel runs with the context's `environment` and, when the context has a `sandbox`, inside
 * it (the interpreter must be visible there, as `/usr/bin/python3` is); its Jupyter channels are
 * Unix sockets in the plugin's state directory, which must then be bound read-write into the
 * sandbox at the same path.
 */
export function createPythonPlugin(options: PythonPluginOptions = {}): RuntimePlugin {
  return new PythonPlugin(options);
}

class PythonPlugin implements RuntimePlugin {
  readonly name = 'python';
  readonly capabilities: readonly string[] = [];
  readonly requirements: readonly PluginRequirement[];
  readonly actions: Readonly<Record<string, PluginAction>>;
  readonly #candidates: readonly string[];
  readonly #startTimeoutMs: number;
  readonly #closer = new AbortController();
  #starting: Promise<KernelSession> | undefined;
  #session: KernelSession | undefined;
  #context: PluginContext | undefined;
  #python = '';
  #cwd = '';
  #unwatch: (() => void) | undefined;
  /** Kernels the memory monitor killed, by pid, until a cell's result or a new kernel says so. */
  readonly #exceeded = new Map<number, MemoryUsage>();
  /** Told with the next cell: an idle kernel was killed in between. */
  #notice: string | undefined;
  #closed: Promise<void> | undefined;

  constructor(options: PythonPluginOptions) {
    this.#startTimeoutMs = positiveOption(
      options.startTimeoutMs,
      DEFAULT_START_TIMEOUT_MS,
      'startTimeoutMs',
    );
    const fromEnv = process.env.AGENT_WORKSPACE_PYTHON;
    this.#candidates =
      options.pythonPath !== undefined
        ? [options.pythonPath]
        : fromEnv
          ? [fromEnv]
          : ['/usr/bin/python3', 'python3'];
    this.requirements = [
      {
        kind: 'binary',
        name: 'Python 3',
        candidates: this.#candidates,
        install:
          'apt-get install -y python3 python3-ipykernel, or set AGENT_WORKSPACE_PYTHON to an interpreter with ipykernel',
      },
      {
        kind: 'check',
        name: 'ipykernel',
        check: (signal) => this.#checkIpykernel(signal),
        install: `${INSTALL_IPYKERNEL} (or pip install ipykernel for the interpreter in use)`,
      },
      optionalLibraryRequirement('zeromq'),
    ];
    const runIpython: PluginAction<typeof ipythonRunCellArgsSchema> = {
      args: ipythonRunCellArgsSchema,
      run: (args, context) => this.#runIpython(args, context),
    };
    this.actions = { run_ipython: runIpython };
  }

  async initialize(context: PluginContext): Promise<void> {
    if (this.#closer.signal.aborted) throw closedError();
    const python = findPython(this.#candidates);
    if (python === undefined) {
      throw new WorkspaceError({
        code: 'NOT_FOUND',
        message: `no Python interpreter found (looked for ${this.#candidates.join(', ')})`,
      });
    }
    this.#context = context;
    this.#python = python;
    this.#cwd = context.workingDir;
    const signal = anySignal([context.signal, this.#closer.signal]);
    const { sandbox } = context;
    this.#starting = (async () => {
      if (sandbox !== undefined) {
        await assertSandboxWritable({
          sandbox,
          dir: context.stateDir,
          subject: "the python plugin's state directory",
          signal,
        });
      }
      return KernelSession.start({
        pythonPath: python,
        cwd: context.workingDir,
        stateDir: context.stateDir,
        processes: { sandbox, environment: context.environment },
        startTimeoutMs: this.#startTimeoutMs,
        signal,
        logger: context.logger,
        onKernelStart: (pid) => this.#watch(pid),
      });
    })();
    this.#session = await this.#starting;
  }

  async health(): Promise<PluginHealth> {
    if (this.#closer.signal.aborted) return { healthy: false, detail: 'the plugin is closed' };
    const pid = this.#session?.pid;
    if (this.#session === undefined || pid === undefined) {
      return { healthy: false, detail: 'no kernel is running; the next cell starts one' };
    }
    const answers = await this.#session.ping(HEARTBEAT_TIMEOUT_MS);
    const memoryBytes = processTree(readProcessTable(), pid).reduce(
      (sum, member) => sum + readResidentBytes(member),
      0,
    );
    return {
      healthy: answers,
      detail: answers
        ? `kernel pid ${pid}`
        : `the kernel (pid ${pid}) does not answer its heartbeat`,
      memoryBytes,
    };
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#closer.abort();
      const session = await this.#starting?.catch(() => undefined);
      await session?.close();
      this.#unwatch?.();
      this.#unwatch = undefined;
    })();
    return this.#closed;
  }

  async #runIpython(
    args: IPythonRunCellArgs,
    context: PluginActionContext,
  ): Promise<IPythonRunCellObservationWire> {
    const session = this.#session;
    if (session === undefined || this.#closer.signal.aborted) throw closedError();
    const result = await session.execute(args.code, {
      timeoutMs: context.timeoutMs,
      signal: context.signal,
    });
    // A cell that ends between two samples still answers for the memory it left its kernel with.
    if (result.pid !== undefined) this.#context?.measureProcessTrees();
    const killedAfter =
      result.pid !== undefined && result.status !== 'died' && this.#exceeded.has(result.pid);
    if (result.cwd !== undefined && !killedAfter) this.#cwd = result.cwd;
    else if ((result.stateLost || killedAfter) && this.#context) {
      this.#cwd = this.#context.workingDir;
    }
    const lines = [result.text.trim(), ...this.#notes(result, context)].filter(Boolean);
    // Before the next cell: it must not be sent to the kernel just killed.
    if (killedAfter) await session.replaceKernel('it used more memory than the limit');
    let content = lines.join('\n');
    if (args.include_extra) {
      content += `\n[Jupyter current working directory: ${this.#cwd}]`;
      content += `\n[Jupyter Python interpreter: ${this.#python}]`;
    }
    return {
      observation: 'run_ipython',
      content,
      extras: { code: args.code, image_urls: result.images.length > 0 ? result.images : null },
    };
  }

  /** The bracketed lines that tell the agent what happened besides the cell's own output. */
  #notes(result: CellResult, context: PluginActionContext): string[] {
    const notes: string[] = [];
    if (this.#notice !== undefined) {
      notes.push(this.#notice);
      this.#notice = undefined;
    }
    const timedOut =
      result.status === 'timeout' ||
      (result.status === 'interrupted' && isTimeout(context.signal.reason));
    const usage = result.pid === undefined ? undefined : this.#exceeded.get(result.pid);
    if (result.pid !== undefined) this.#exceeded.delete(result.pid);
    if (usage !== undefined) {
      notes.push(`[${describeMemoryKill(usage)}; it will be restarted for the next cell]`);
    } else if (timedOut) {
      const seconds = Math.round(context.timeoutMs / 100) / 10;
      notes.push(`[The cell was interrupted after ${seconds} seconds: it ran past its time limit]`);
    } else if (result.status === 'interrupted' && result.note === undefined) {
      notes.push('[The cell was interrupted]');
    }
    if (usage === undefined && result.note !== undefined)
      notes.push(`[${capitalize(result.note)}]`);
    return notes;
  }

  /** Registers a new kernel with the memory monitor (the old one's watch ends). */
  #watch(pid: number): void {
    const context = this.#context;
    if (context === undefined) return;
    this.#unwatch?.();
    // A kernel killed while no cell ran: the next cell's observation tells it.
    for (const [killed, usage] of this.#exceeded) {
      if (killed === pid) continue;
      this.#exceeded.delete(killed);
      this.#notice = `[${describeMemoryKill(usage)}; this cell ran on a new kernel]`;
    }
    this.#unwatch = context.watchProcessTree({
      label: 'python kernel',
      pid,
      // The monitor has already killed the kernel: its running cell ends as `died`.
      onExceeded: (usage) => {
        this.#exceeded.set(pid, usage);
        context.logger.warn({ pid, ...usage }, 'python kernel exceeded its memory limit');
      },
    });
  }

  async #checkIpykernel(signal: AbortSignal): Promise<string | undefined> {
    const python = findPython(this.#candidates);
    if (python === undefined) {
      return `no Python interpreter found (looked for ${this.#candidates.join(', ')})`;
    }
    return new Promise((resolve) => {
      execFile(
        python,
        ['-c', 'import ipykernel'],
        // Before `initialize`, so without the host's environment; never with the server's keys.
        { signal, timeout: CHECK_TIMEOUT_MS, encoding: 'utf8', env: childEnvironment() },
        (error, _stdout, stderr) => {
          if (error === null) return resolve(undefined);
          const why = stderr.trim().split('\n').at(-1) || error.message;
          resolve(`${python} cannot import ipykernel (${why})`);
        },
      );
    });
  }
}

/** The first candidate that is an executable file: absolute as given, else on `PATH`. */
function findPython(candidates: readonly string[]): string | undefined {
  const searchPath = [process.env.PATH ?? '', SYSTEM_PATH].join(path.delimiter);
  for (const candidate of candidates) {
    const found = candidate.includes('/')
      ? findExecutable(path.basename(candidate), path.dirname(path.resolve(candidate)))
      : findExecutable(candidate, searchPath);
    if (found !== undefined) return found;
  }
  return undefined;
}

function describeMemoryKill({ rssBytes, limitBytes }: MemoryUsage): string {
  return `The python kernel used ${formatMebibytes(rssBytes)}, over the ${formatMebibytes(limitBytes)} limit, so it was stopped and its state (variables, imports) is lost`;
}

/** True for the reason of an `AbortSignal.timeout()` (a `TimeoutError` DOMException). */
function isTimeout(reason: unknown): boolean {
  return (reason as { name?: unknown } | undefined)?.name === 'TimeoutError';
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function closedError(): WorkspaceError {
  return new WorkspaceError({
    code: 'WORKSPACE_CLOSED',
    message: 'the python plugin is not running (closed, or not initialized)',
  });
}
