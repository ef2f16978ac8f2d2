import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The built CLI under test (`pnpm turbo run build --filter=@agent-workspace/runtime-api`). */
export const CLI_PATH = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** How a server process ended. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Options of {@link RuntimeApiProcess.start}. */
export interface RuntimeApiProcessOptions {
  /** The agent-server image (`--image`). */
  image: string;
  /** The label namespace (`--namespace`) of this test file. */
  namespace: string;
  /** More flags, e.g. `['--max-sessions', '3']`. */
  flags?: string[];
  /** More environment, e.g. `DOCKER_HOST` of an engine proxy. */
  env?: Record<string, string>;
  /** The API key and session secret; fresh ones when unset (reuse a killed server's to restart it). */
  keys?: { apiKey: string; secret: string };
}

/**
 * The real `runtime-api` CLI as a child process (`node dist/cli.js --port 0 ...`) with a fresh
 * API key and session secret in its environment; its output (JSON log lines and standard
 * error) is kept to check that no key ever shows up in it.
 */
export class RuntimeApiProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly port: number;
  /** The accepted `X-API-Key`. */
  readonly apiKey: string;
  /** The session key secret. */
  readonly secret: string;
  /** Resolves once the process exited. */
  readonly exited: Promise<ProcessExit>;
  readonly #output: { text: string };
  #exit: ProcessExit | undefined;

  private constructor(
    child: ChildProcess,
    url: string,
    keys: { apiKey: string; secret: string },
    output: { text: string },
    exited: Promise<ProcessExit>,
  ) {
    this.child = child;
    this.url = url;
    this.port = Number(new URL(url).port);
    this.apiKey = keys.apiKey;
    this.secret = keys.secret;
    this.#output = output;
    this.exited = exited;
    void exited.then((exit) => {
      this.#exit = exit;
    });
  }

  /** Starts the CLI and resolves once it logged the line with its `url`. */
  static async start(options: RuntimeApiProcessOptions): Promise<RuntimeApiProcess> {
    if (!existsSync(CLI_PATH)) {
      throw new Error(
        `${CLI_PATH} is missing: build first (pnpm turbo run build --filter=@agent-workspace/runtime-api)`,
      );
    }
    const keys = options.keys ?? {
      apiKey: `reliability-${randomUUID()}`,
      secret: `secret-${randomUUID()}`,
    };
    const env = { ...process.env, ...options.env };
    for (const name of Object.keys(env)) if (name.startsWith('RUNTIME_API_')) delete env[name];
    env.RUNTIME_API_KEY = keys.apiKey;
    env.RUNTIME_API_SESSION_SECRET = keys.secret;
    const args = [
      CLI_PATH,
      '--port',
      '0',
      '--image',
      options.image,
      '--namespace',
      options.namespace,
      // Request logs on: they must not show a key either.
      '--log-level',
      'debug',
      ...(options.flags ?? []),
    ];
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = { text: '' };
    // Keep the tail only: a server under attack logs a lot.
    const keep = (chunk: string) => {
      output.text = (output.text + chunk).slice(-4 * 1024 * 1024);
    };
    child.stderr?.on('data', (chunk: Buffer) => keep(chunk.toString()));
    const exited = new Promise<ProcessExit>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the server did not log its url within 30 s: ${output.text}`));
      }, 30_000);
      createInterface({ input: child.stdout! }).on('line', (line) => {
        keep(`${line}\n`);
        let entry: Record<string, unknown>;
        try {
          entry = JSON.parse(line) as Record<string, unknown>;
        } catch {
          return;
        }
        if (typeof entry.url === 'string') {
          clearTimeout(timer);
          resolve(entry.url);
        }
      });
      void exited.then((exit) => {
        clearTimeout(timer);
        reject(new Error(`the server exited (${JSON.stringify(exit)}) early: ${output.text}`));
      });
    });
    return new RuntimeApiProcess(child, url, keys, output, exited);
  }

  /** Everything it wrote so far (standard output and error). */
  get output(): string {
    return this.#output.text;
  }

  /** How it ended, once it has. */
  get exit(): ProcessExit | undefined {
    return this.#exit;
  }

  /** SIGKILL at once (no clean-up of any kind); resolves with how it ended. */
  async kill(): Promise<ProcessExit> {
    if (this.#exit === undefined) this.child.kill('SIGKILL');
    return this.exited;
  }

  /** SIGTERM, then SIGKILL if it has not exited within 15 s; resolves with how it ended. */
  async stop(): Promise<ProcessExit> {
    if (this.#exit === undefined) this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }
}
