import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_API_KEY_FLAG_WARNING } from './cli/parse-cli-args.js';
import { type ServerProcess, spawnServerProcess } from './test-support/spawn-server-process.js';
import { VERSION } from './version.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
/** The CLI from source: plain `node` with the tsx loader. */
const cli = ['--import', 'tsx', 'src/cli.ts'];

/** Runs the CLI to completion. */
function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...cli, ...args], { cwd: packageDir }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

/** Everything a served run printed: started, asked once with `key`, then stopped by SIGTERM. */
interface ServedRun {
  stdout: string;
  stderr: string;
  /** Status of `GET /api/git/changes` with the key. */
  status: number;
}

/**
 * Runs the CLI until it listens, makes one request with `key` in the deprecated query parameter
 * (logged at debug level) and one authenticated with it, then SIGTERMs it.
 */
function serveOnce(args: string[], env: NodeJS.ProcessEnv, key: string): Promise<ServedRun> {
  const child = spawn(process.execPath, [...cli, ...args], {
    cwd: packageDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    let status = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /"url":"(http:[^"]+)"/.exec(stdout)?.[1];
      if (url === undefined || status !== 0) return;
      status = -1;
      fetch(`${url}/health?session_api_key=${key}`)
        .then(() =>
          fetch(`${url}/api/git/changes?path=.`, { headers: { 'x-session-api-key': key } }),
        )
        .then((response) => {
          status = response.status;
          child.kill('SIGTERM');
        }, reject);
    });
    child.once('exit', () => resolve({ stdout, stderr, status }));
  });
}

describe('agent-server CLI', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'agent-server-cli-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('serves until SIGTERM, then exits 0', async () => {
    const server: ServerProcess = await spawnServerProcess(
      [...cli, '--port', '0', '--working-dir', dir, '--session-api-key', 'flag-key'],
      { cwd: packageDir, env: { ...process.env, OH_SESSION_API_KEYS_0: 'env-key' } },
    );
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.logs.find((line) => line.url !== undefined)).toMatchObject({
      level: 30,
      url: server.url,
      workingDir: dir,
      msg: `agent-server listening on ${server.url}`,
    });

    const health = await fetch(`${server.url}/health`);
    expect(await health.json()).toEqual({ status: 'ok' });
    const route = `${server.url}/api/git/changes?path=.`;
    expect((await fetch(route)).status).toBe(401);
    for (const key of ['flag-key', 'env-key']) {
      const response = await fetch(route, { headers: { 'x-session-api-key': key } });
      expect(await response.json()).toEqual([]);
    }

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.logs.at(-1)).toMatchObject({ signal: 'SIGTERM', msg: 'shutting down' });
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  });

  it('never prints a key, and warns on standard error about one given as a flag', async () => {
    const base = ['--port', '0', '--working-dir', dir, '--log-level', 'debug'];
    const flagKey = 'flag-key-4f1d9c2b7e';
    const envKey = 'env-key-8a3e6d0c51';
    const withFlag = await serveOnce([...base, '--session-api-key', flagKey], {}, flagKey);
    const withEnvironment = await serveOnce(base, { SESSION_API_KEY: envKey }, envKey);
    for (const [run, key] of [
      [withFlag, flagKey],
      [withEnvironment, envKey],
    ] as const) {
      expect(run.status).toBe(200);
      expect(run.stdout).toContain('"sessionApiKeyCount":1');
      expect(run.stdout).not.toContain(key);
      expect(run.stderr).not.toContain(key);
    }
    const warning = `agent-server: warning: ${SESSION_API_KEY_FLAG_WARNING}\n`;
    expect(withFlag.stderr).toBe(warning);
    expect(withEnvironment.stderr).toBe('');
  });

  it('rejects a bad flag with exit code 2, naming it', async () => {
    const unknown = await run(['--bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("agent-server: Unknown option '--bogus'");
    const badPort = await run(['--port', 'eighty']);
    expect(badPort).toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringContaining("--port must be an integer from 0 to 65535, got 'eighty'"),
    });
  });

  it('prints the version and the help', async () => {
    expect(await run(['--version'])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--session-api-key <key>');
    expect(help.stdout).toMatch(/SESSION_API_KEY +An accepted X-Session-API-Key \(preferred/);
  });

  it('exits 1 when it cannot listen', async () => {
    const first = await spawnServerProcess([...cli, '--port', '0', '--working-dir', dir], {
      cwd: packageDir,
    });
    const port = new URL(first.url).port;
    try {
      const second = await run(['--port', port, '--working-dir', dir]);
      expect(second.code).toBe(1);
      expect(second.stderr).toContain('agent-server: failed to start:');
      expect(second.stderr).toContain('EADDRINUSE');
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
  });
});
