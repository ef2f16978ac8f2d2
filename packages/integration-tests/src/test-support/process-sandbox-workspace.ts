import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, readFile, realpath, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type ReleaseSandboxOptions,
  type SandboxEndpoint,
  type SandboxHookOptions,
  type SandboxLogsOptions,
  type SandboxState,
  SandboxWorkspace,
  type SandboxWorkspaceOptions,
} from '@agent-workspace/core';

/** The `agent-server` command of the built `@agent-workspace/agent-server` package. */
const agentServerCli = (() => {
  const load = createRequire(import.meta.url);
  const manifestPath = load.resolve('@agent-workspace/agent-server/package.json');
  const manifest = load(manifestPath) as { bin: Record<string, string> };
  return path.join(path.dirname(manifestPath), manifest.bin['agent-server']!);
})();

/** Options of {@link ProcessSandboxWorkspace}. */
export interface ProcessSandboxWorkspaceOptions
  extends Omit<SandboxWorkspaceOptions, 'workingDir'> {
  /**
   * A script run with `node -e` instead of the agent-server CLI (to fake broken sandboxes). It
   * gets `SESSION_API_KEY` and `WORKING_DIR` and must print a JSON line with `url` once it
   * listens.
   */
  script?: string;
  /**
   * Pause ends the process and resume starts a new one on another port, keeping the directory:
   * a sandbox that comes back at another address (a rescheduled pod or service task).
   */
  restartOnResume?: boolean;
  /** More agent-server CLI flags, e.g. `['--plugin', 'python']`. */
  serverArgs?: string[];
}

/**
 * A sandbox that is a child process running the built agent-server CLI in a fresh temporary
 * directory: the smallest real {@link SandboxWorkspace}. Pause is SIGSTOP, resume SIGCONT,
 * release SIGKILL plus removing the directory. For tests of the template.
 */
export class ProcessSandboxWorkspace extends SandboxWorkspace {
  readonly kind = 'process-sandbox';
  readonly #script: string | undefined;
  readonly #restartOnResume: boolean;
  readonly #serverArgs: string[];
  readonly #apiKey = randomBytes(32).toString('hex');
  readonly #logs: string[] = [];
  #child: ChildProcess | undefined;
  #exited: Promise<void> | undefined;
  #paused = false;

  constructor({
    script,
    restartOnResume,
    serverArgs = [],
    ...options
  }: ProcessSandboxWorkspaceOptions = {}) {
    super({ ...options, workingDir: path.join(os.tmpdir(), `process-sandbox-${randomUUID()}`) });
    this.#script = script;
    this.#restartOnResume = restartOnResume ?? false;
    this.#serverArgs = serverArgs;
  }

  /** The sandbox process, once started. */
  get child(): ChildProcess | undefined {
    return this.#child;
  }

  protected async createSandbox(): Promise<void> {
    await mkdir(this.workingDir, { recursive: true });
  }

  protected async startSandbox({ signal }: SandboxHookOptions): Promise<SandboxEndpoint> {
    const cwd = await realpath(this.workingDir);
    const args = this.#script
      ? ['-e', this.#script]
      : [agentServerCli, '--port', '0', '--working-dir', cwd, ...this.#serverArgs];
    const child = spawn(process.execPath, args, {
      cwd,
      env: { ...process.env, SESSION_API_KEY: this.#apiKey, WORKING_DIR: cwd },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    this.#exited = once(child, 'exit').then(() => {});
    const url = new Promise<string>((resolve, reject) => {
      for (const stream of [child.stdout!, child.stderr!]) {
        createInterface({ input: stream }).on('line', (line) => {
          this.#logs.push(line);
          const found = /"url":"([^"]+)"/.exec(line)?.[1];
          if (found) resolve(found);
        });
      }
      void this.#exited!.then(() => reject(new Error('the sandbox process exited')));
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
    return { host: await url, apiKey: this.#apiKey };
  }

  protected async sandboxState(): Promise<SandboxState> {
    const child = this.#child;
    if (!child) return { status: 'starting' };
    if (child.exitCode !== null) return { status: 'exited', exitCode: child.exitCode };
    if (child.signalCode !== null) {
      const number = os.constants.signals[child.signalCode];
      return { status: 'exited', exitCode: 128 + number, detail: `killed by ${child.signalCode}` };
    }
    return { status: this.#paused ? 'paused' : 'running' };
  }

  protected async sandboxLogs({ tailLines }: SandboxLogsOptions): Promise<string> {
    return this.#logs.slice(-tailLines).join('\n');
  }

  protected override async pauseSandbox(): Promise<void> {
    const child = this.#child;
    if (this.#restartOnResume) {
      await this.#kill();
      this.#paused = true;
      return;
    }
    if (child?.pid !== undefined && child.kill('SIGSTOP')) await untilStopped(child.pid);
    this.#paused = true;
  }

  protected override async resumeSandbox(
    options: SandboxHookOptions,
  ): Promise<SandboxEndpoint | undefined> {
    this.#paused = false;
    if (this.#restartOnResume) return this.startSandbox(options);
    this.#child?.kill('SIGCONT');
    return undefined;
  }

  protected async releaseSandbox(_options: ReleaseSandboxOptions): Promise<void> {
    await this.#kill();
    await rm(this.workingDir, { recursive: true, force: true });
  }

  async #kill(): Promise<void> {
    const child = this.#child;
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await this.#exited;
    }
  }
}

/** Resolves once `pid` is stopped (a signal is delivered asynchronously), or gone; at most 5 s. */
async function untilStopped(pid: number): Promise<void> {
  for (let attempt = 0; attempt < 1000; attempt++) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
    if (stat === undefined || stat.slice(stat.lastIndexOf(')') + 2).startsWith('T')) return;
    await sleep(5);
  }
}
