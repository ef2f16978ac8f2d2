import { type ChildProcess, spawn } from 'node:child_process';
import { type Dirent, existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The built CLI under test (`pnpm --filter @agent-workspace/agent-server build`). */
export const CLI_PATH = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** The session key every reliability server accepts. */
export const KEY = 'reliability-key';

/** Headers of an authenticated JSON request. */
export const AUTH = { 'x-session-api-key': KEY } as const;

/** How a server process ended. */
export interface ServerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Options of {@link ServerProcess.start}. */
export interface ServerProcessOptions {
  /** The working directory (`--working-dir`). */
  workingDir: string;
  /** The private runtime directory (`--runtime-dir`); reuse one to test the start-up sweep. */
  runtimeDir: string;
  /** More flags, e.g. `['--confine-to-working-dir']`. */
  flags?: string[];
  /** Session key; `null` runs without authentication. Default {@link KEY}. */
  key?: string | null;
  /** Runs the server under `bash -c 'ulimit -n <n>; exec node ...'`. */
  maxOpenFiles?: number;
  /** More environment variables of the server. */
  env?: Record<string, string>;
}

/** Interval of the RSS sampler. */
const RSS_SAMPLE_MS = 50;

/**
 * The real agent-server CLI running as a child process (`node dist/cli.js ...`). It samples its
 * resident memory every 50 ms from `/proc/<pid>/status` from start to exit.
 */
export class ServerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly url: string;
  readonly port: number;
  /** Resolves once the process exited. */
  readonly exited: Promise<ServerExit>;
  /** Its JSON log lines so far. */
  readonly logs: Record<string, unknown>[];
  #stderr: { text: string };
  #peakRss = 0;
  #sampler: NodeJS.Timeout;
  #exit: ServerExit | undefined;

  private constructor(
    child: ChildProcess,
    url: string,
    logs: Record<string, unknown>[],
    stderr: { text: string },
    exited: Promise<ServerExit>,
  ) {
    this.child = child;
    this.pid = child.pid as number;
    this.url = url;
    this.port = Number(new URL(url).port);
    this.logs = logs;
    this.#stderr = stderr;
    this.exited = exited;
    void exited.then((exit) => {
      this.#exit = exit;
      clearInterval(this.#sampler);
    });
    this.#sampler = setInterval(() => this.sampleRss(), RSS_SAMPLE_MS);
    this.#sampler.unref();
    this.sampleRss();
  }

  /** Starts the CLI and resolves once it logged the line with its `url`. */
  static async start(options: ServerProcessOptions): Promise<ServerProcess> {
    if (!existsSync(CLI_PATH)) {
      throw new Error(
        `${CLI_PATH} is missing: build first (pnpm --filter @agent-workspace/agent-server build)`,
      );
    }
    const key = options.key === undefined ? KEY : options.key;
    const args = [
      CLI_PATH,
      '--port',
      '0',
      '--working-dir',
      options.workingDir,
      '--runtime-dir',
      options.runtimeDir,
      ...(options.flags ?? []),
    ];
    const env = { ...process.env, ...options.env };
    // The key goes where the README says it should (not the command line); the server must not
    // pick up keys of the environment it runs in.
    delete env.SESSION_API_KEY;
    if (key !== null) env.SESSION_API_KEY = key;
    const child =
      options.maxOpenFiles === undefined
        ? spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
        : spawn(
            'bash',
            [
              '-c',
              `ulimit -n ${options.maxOpenFiles} && exec "$0" "$@"`,
              process.execPath,
              ...args,
            ],
            { env, stdio: ['ignore', 'pipe', 'pipe'] },
          );
    const logs: Record<string, unknown>[] = [];
    const stderr = { text: '' };
    child.stderr?.on('data', (chunk: Buffer) => {
      // Keep the tail only: a server under attack may warn a lot.
      stderr.text = (stderr.text + chunk.toString()).slice(-64 * 1024);
    });
    const exited = new Promise<ServerExit>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the server did not log its url within 30 s: ${stderr.text}`));
      }, 30_000);
      createInterface({ input: child.stdout! }).on('line', (line) => {
        let entry: Record<string, unknown>;
        try {
          entry = JSON.parse(line) as Record<string, unknown>;
        } catch {
          return;
        }
        if (logs.length < 10_000) logs.push(entry);
        if (typeof entry.url === 'string') {
          clearTimeout(timer);
          resolve(entry.url);
        }
      });
      void exited.then((exit) => {
        clearTimeout(timer);
        reject(new Error(`the server exited (${JSON.stringify(exit)}) early: ${stderr.text}`));
      });
    });
    return new ServerProcess(child, url, logs, stderr, exited);
  }

  /** The tail of its standard error. */
  get stderr(): string {
    return this.#stderr.text;
  }

  /** How it ended, once it has. */
  get exit(): ServerExit | undefined {
    return this.#exit;
  }

  /** Largest resident set seen so far, in bytes. */
  get peakRss(): number {
    return this.#peakRss;
  }

  /** Starts a new peak (e.g. after set-up work that is not part of the measurement). */
  resetPeakRss(): void {
    this.#peakRss = 0;
    this.sampleRss();
  }

  /** Its current resident set in bytes (0 once it is gone); updates the peak. */
  sampleRss(): number {
    const rss = rssOf(this.pid);
    if (rss > this.#peakRss) this.#peakRss = rss;
    return rss;
  }

  /** How many descriptors it holds open now. */
  openDescriptors(): number {
    return readdirSync(`/proc/${this.pid}/fd`).length;
  }

  /**
   * Its descriptor count once it stopped changing (two equal readings 250 ms apart, at most 5 s):
   * connections just closed by a client take a moment to go.
   */
  async settledDescriptors(): Promise<number> {
    let last = this.openDescriptors();
    for (let round = 0; round < 20; round++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const now = this.openDescriptors();
      if (now === last) return now;
      last = now;
    }
    return last;
  }

  /** What its descriptors point at, counted (sockets and pipes by kind), for failure messages. */
  describeDescriptors(): string {
    const inodes = (file: string) => {
      try {
        return new Set(
          readFileSync(file, 'utf8')
            .split('\n')
            .slice(1)
            .map((line) => line.trim().split(/\s+/))
            .map((fields) => (file.endsWith('unix') ? fields[6] : fields[9]))
            .filter((inode): inode is string => inode !== undefined),
        );
      } catch {
        return new Set<string>();
      }
    };
    const tcp = new Set([...inodes('/proc/net/tcp'), ...inodes('/proc/net/tcp6')]);
    const unix = inodes('/proc/net/unix');
    const counts = new Map<string, number>();
    const numbers = new Map<string, string[]>();
    for (const fd of readdirSync(`/proc/${this.pid}/fd`)) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${this.pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const socket = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (socket !== undefined) {
        target = tcp.has(socket) ? 'tcp socket' : unix.has(socket) ? 'unix socket' : 'socket';
      } else target = target.replace(/:\[\d+\]$/, '');
      counts.set(target, (counts.get(target) ?? 0) + 1);
      if (target.startsWith('/')) numbers.set(target, [...(numbers.get(target) ?? []), fd]);
    }
    return [...counts]
      .map(([target, count]) => {
        const fds = numbers.get(target);
        return `${count}× ${target}${fds ? ` (fd ${fds.join(' ')})` : ''}`;
      })
      .join(', ');
  }

  /** Sends a signal (no-op once it exited). */
  kill(signal: NodeJS.Signals): void {
    if (this.#exit === undefined) this.child.kill(signal);
  }

  /** SIGTERM, then SIGKILL if it has not exited within 15 s; resolves with how it ended. */
  async stop(): Promise<ServerExit> {
    this.kill('SIGTERM');
    const timer = setTimeout(() => this.kill('SIGKILL'), 15_000);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }
}

/** Resident set size of a process in bytes (0 when it is gone). */
export function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** True while a process with this pid exists (and is not a zombie). */
export function processExists(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Temporary directories of one test: a working directory, a runtime directory and room for more. */
export interface Scratch {
  /** Real path of a fresh, empty working directory. */
  workingDir: string;
  /** A private (0700) runtime directory for `--runtime-dir`. */
  runtimeDir: string;
  /** Real path of a directory for everything else (outside the working directory). */
  base: string;
  /** Removes everything. */
  remove(): Promise<void>;
}

/** Creates the directories of one test under the system temporary directory. */
export async function createScratch(name: string): Promise<Scratch> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), `reliability-${name}-`)));
  const workingDir = path.join(base, 'work');
  const runtimeDir = path.join(base, 'runtime');
  await mkdir(workingDir);
  await mkdir(runtimeDir, { mode: 0o700 });
  return {
    workingDir,
    runtimeDir,
    base,
    remove: () => rm(base, { recursive: true, force: true }),
  };
}

/**
 * Every entry under `dir`, at any depth, that `match` picks (directories are walked either
 * way); none while `dir` is missing, and a directory renamed meanwhile is passed over.
 */
export function findEntries(dir: string, match: (entry: Dirent) => boolean): string[] {
  const found: string[] = [];
  const walk = (current: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      if (match(entry)) found.push(full);
      if (entry.isDirectory()) walk(full);
    }
  };
  walk(dir);
  return found;
}

/** Every temporary upload file (`.<name>.<12 hex>.part`) under `dir`, at any depth. */
export function partFiles(dir: string): string[] {
  return findEntries(
    dir,
    (entry) => !entry.isDirectory() && /^\..*\.[0-9a-f]{12}\.part$/s.test(entry.name),
  );
}

/** Polls `check` every 50 ms until it returns true or `timeoutMs` pass; returns the last result. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
