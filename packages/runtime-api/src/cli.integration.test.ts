import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { call } from './server/test-support/runtime-api-call.js';
import { waitUntilHealthy } from './test-support/agent-server-probe.js';
import { remoteApiTestContext } from './test-support/remote-api-test-context.js';

/** The built CLI (`pnpm turbo run build --filter=@agent-workspace/runtime-api`). */
const CLI_PATH = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const context = remoteApiTestContext();
const KEY = `runtime-api-key-${randomUUID()}`;
const SECRET = `session-secret-${randomUUID()}`;

/** The environment of a child without any Runtime API secret of the parent's. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('RUNTIME_API_')) delete env[name];
  return { ...env, ...extra };
}

/** Runs the CLI to its end. */
function run(args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [CLI_PATH, ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

context.describe('the runtime-api CLI (built, as a child process)', () => {
  afterAll(() => context.cleanup());

  it('is built', () => {
    expect(existsSync(CLI_PATH), `${CLI_PATH}: build the package first`).toBe(true);
  });

  it('prints its help and refuses to start without a secret (exit 2, naming it)', async () => {
    const help = await run(['--help'], childEnv({}));
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: runtime-api --image <ref>');
    const noSecret = await run(['--image', context.image], childEnv({ RUNTIME_API_KEY: KEY }));
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toMatch(/^runtime-api: RUNTIME_API_SESSION_SECRET is not set/);
    const noKey = await run(
      ['--image', context.image],
      childEnv({ RUNTIME_API_SESSION_SECRET: SECRET }),
    );
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/^runtime-api: RUNTIME_API_KEY is not set/);
  });

  it('serves until SIGTERM, then exits 0; its log holds no key', async () => {
    const child = spawn(
      process.execPath,
      [
        CLI_PATH,
        '--port',
        '0',
        '--image',
        context.image,
        '--namespace',
        context.namespace,
        '--log-level',
        'trace',
      ],
      {
        env: childEnv({ RUNTIME_API_KEY: KEY, RUNTIME_API_SESSION_SECRET: SECRET }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const started = await new Promise<Record<string, unknown>>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        output += `${line}\n`;
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (typeof entry.url === 'string') resolve(entry);
      });
      void exited.then((code) => reject(new Error(`exited early (${code}): ${output}`)));
    });
    expect(started).toMatchObject({
      backend: 'docker',
      namespace: context.namespace,
      images: [context.image],
      apiKeyCount: 1,
    });
    const url = started.url as string;
    expect((await call(url, '/health')).json).toEqual({ status: 'ok' });
    const session = await call(url, '/start', {
      apiKey: KEY,
      body: { image: context.image, session_id: `cli-${randomUUID()}` },
    });
    expect(session.status).toBe(201);
    expect((await call(url, '/sessions', { apiKey: 'wrong-key-wrong-key' })).status).toBe(401);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // Request logs are on at trace level: not even they show a key.
    expect(output).toContain('"msg":"incoming request"');
    expect(output).not.toContain(KEY);
    expect(output).not.toContain(SECRET);
    expect(output).not.toContain(session.json.session_api_key);
    // The session outlives the server: it lives in the engine.
    await waitUntilHealthy(session.json.url);
  });
});
