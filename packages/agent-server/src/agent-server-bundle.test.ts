import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout } from 'node:timers/promises';
import {
  AGENT_SERVER_LISTENING_EVENT,
  AGENT_SERVER_ROUTES,
  SESSION_API_KEY_HEADER,
} from '@agent-workspace/protocol';
import { build } from 'tsup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleOptions } from '../tsup.config.js';
import { spawnServerProcess } from './test-support/spawn-server-process.js';
import { VERSION } from './version.js';

describe('single-file bundle', () => {
  let outDir: string;

  beforeAll(async () => {
    // Built into a directory with no node_modules anywhere above it.
    outDir = await mkdtemp(path.join(os.tmpdir(), 'agent-server-bundle-'));
    await build({ ...bundleOptions(outDir), config: false, silent: true });
  }, 120_000);
  afterAll(() => rm(outDir, { recursive: true, force: true }));

  /**
   * Starts the bundle's launcher with a preload (`--require`) written from `source`, which
   * reports on standard error at exit; returns the server and what it wrote there so far.
   */
  const startWithPreload = async (name: string, source: string, apiKey: string) => {
    const preload = path.join(outDir, name);
    await writeFile(preload, source);
    const server = await spawnServerProcess(
      ['--require', preload, path.join(outDir, 'agent-server-launcher.cjs'), '--port', '0'],
      { cwd: outDir, env: { ...process.env, SESSION_API_KEY: apiKey } },
    );
    let stderr = '';
    server.child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    return { server, stderr: () => stderr };
  };

  it('holds only the bundle, its launchers, swagger-ui assets and the web page', async () => {
    expect((await readdir(outDir)).sort()).toEqual([
      'agent-server-launcher.cjs',
      'agent-server.cjs',
      'agent-server.mjs',
      'static',
      'ui',
    ]);
    expect(await readdir(path.join(outDir, 'static'))).toContain('swagger-ui-bundle.js');
    expect(await readdir(path.join(outDir, 'ui'))).toContain('index.html');
  });

  it("keeps proxy-chain's RequestError recognisable by name without keepNames", async () => {
    const bundle = await readFile(path.join(outDir, 'agent-server.cjs'), 'latin1');
    expect(bundle).toMatch(/this\.name\s*=\s*"RequestError"/);
    expect(bundle).not.toMatch(/this\.name\s*=\s*_?RequestError\d*\.name/);
  });

  it('serves without compiling route matchers or zod parsers from text, or loading http2', async () => {
    // Records the source of every function the process compiles from text, and the Node modules
    // it loaded, printed at exit.
    const apiKey = 'a'.repeat(32);
    const { server, stderr } = await startWithPreload(
      'record-compiled-functions.cjs',
      `const bodies = [];
const record = (args) => { bodies.push(String(args[args.length - 1] ?? '')); };
globalThis.Function = new Proxy(Function, {
  construct(target, args) { record(args); return Reflect.construct(target, args); },
  apply(target, self, args) { record(args); return Reflect.apply(target, self, args); },
});
process.on('exit', () => {
  process.stderr.write('compiled:' + JSON.stringify(bodies) + '\\n');
  process.stderr.write('modules:' + JSON.stringify(process.moduleLoadList) + '\\n');
});`,
      apiKey,
    );
    try {
      expect((await fetch(`${server.url}/health`)).status).toBe(200);
      const headers = { 'X-Session-API-Key': apiKey, 'content-type': 'application/json' };
      expect((await fetch(`${server.url}/server_info`, { headers })).status).toBe(200);
      const command = await fetch(`${server.url}/api/bash/execute_bash_command`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ command: 'true' }),
      });
      expect(await command.json()).toMatchObject({ exit_code: 0 });
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
    const bodies = JSON.parse(/compiled:(.*)/.exec(stderr())?.[1] ?? 'null') as string[];
    // The recorder sees what is still compiled: find-my-way's constraint matchers.
    expect(bodies.some((body) => body.includes('derivedConstraints'))).toBe(true);
    expect(bodies.filter((body) => body.includes('path.charCodeAt(i + '))).toEqual([]);
    expect(bodies.filter((body) => body.includes('_createParamsObject'))).toEqual([]);
    expect(bodies.filter((body) => body.includes('function (payload, ctx)'))).toEqual([]);
    const modules = JSON.parse(/modules:(.*)/.exec(stderr())?.[1] ?? 'null') as string[];
    expect(modules).toContain('NativeModule http');
    expect(modules).not.toContain('NativeModule http2');
  });

  it('builds the schemas only conversations need on their first request, not at start', async () => {
    // esbuild runs a module reached through import() when that runs (its `__esm` init, which
    // reads the module's name with Object.getOwnPropertyNames): records protocol's, with a time.
    const apiKey = 'b'.repeat(32);
    const { server, stderr } = await startWithPreload(
      'record-module-inits.cjs',
      `const names = Object.getOwnPropertyNames;
const inits = [];
Object.getOwnPropertyNames = function (object) {
  const keys = names(object);
  if (keys.length === 1 && /protocol[\\/]src[\\/]/.test(keys[0])) inits.push([performance.timeOrigin + performance.now(), keys[0]]);
  return keys;
};
process.on('exit', () => process.stderr.write('inits:' + JSON.stringify(inits) + '\\n'));`,
      apiKey,
    );
    const headers = { [SESSION_API_KEY_HEADER]: apiKey, 'content-type': 'application/json' };
    let firstCommandDone = 0;
    try {
      expect((await fetch(`${server.url}/server_info`, { headers })).status).toBe(200);
      const command = await fetch(`${server.url}${AGENT_SERVER_ROUTES.executeBashCommand}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ command: 'true' }),
      });
      expect(await command.json()).toMatchObject({ exit_code: 0 });
      await setTimeout(50);
      firstCommandDone = performance.timeOrigin + performance.now();
      await setTimeout(50);
      const count = await fetch(`${server.url}${AGENT_SERVER_ROUTES.countConversations}`, {
        headers,
      });
      expect(await count.json()).toBe(0);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
    const inits = JSON.parse(/inits:(.*)/.exec(stderr())?.[1] ?? 'null') as [number, string][];
    const modulesInit = (before: boolean) =>
      inits
        .filter(([time]) => time < firstCommandDone === before)
        .map(([, name]) => name.replace(/.*protocol[\\/]src[\\/]/, ''));
    const conversationModules = [
      'models/conversation-info.ts',
      'models/start-conversation-request.ts',
      'models/conversation-stats.ts',
    ];
    // The recorder sees the modules a first command needs, and the wire models' registry.
    expect(modulesInit(true)).toContain('models/bash-command.ts');
    for (const module of [...conversationModules, 'json-schema/wire-schemas.ts']) {
      expect(modulesInit(true), module).not.toContain(module);
    }
    for (const module of conversationModules) expect(modulesInit(false)).toContain(module);
  });

  it('runs with plain node and serves health, info, docs and the web page', async () => {
    const server = await spawnServerProcess(
      [path.join(outDir, 'agent-server.mjs'), '--port', '0', '--working-dir', outDir],
      { cwd: outDir },
    );
    try {
      expect(await (await fetch(`${server.url}/health`)).json()).toEqual({ status: 'ok' });
      const info = (await (await fetch(`${server.url}/server_info`)).json()) as object;
      expect(info).toMatchObject({ version: VERSION, docs: '/docs' });

      const home = await fetch(`${server.url}/`);
      expect(home.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await home.text()).toContain('<div id="app">');

      const page = await fetch(`${server.url}/docs`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('swagger-ui');
      for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'logo.svg']) {
        const response = await fetch(`${server.url}/docs/static/${asset}`);
        expect(response.status, asset).toBe(200);
        await response.arrayBuffer();
      }
      const openapi = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
        paths: object;
      };
      expect(Object.keys(openapi.paths)).toContain('/api/file/upload');
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
  });

  it('writes a V8 code cache once, starts from it, and starts without it or past a bad one', async () => {
    const launcher = path.join(outDir, 'agent-server-launcher.cjs');
    const cache = path.join(outDir, 'agent-server.cjs.cache');
    const start = async (env: NodeJS.ProcessEnv = process.env) => {
      const server = await spawnServerProcess([launcher, '--port', '0', '--working-dir', outDir], {
        cwd: outDir,
        env,
      });
      const listening = server.logs.find((entry) => entry.event === AGENT_SERVER_LISTENING_EVENT);
      const health = await fetch(`${server.url}/health`);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      return { codeCache: listening?.codeCache, health: health.status };
    };
    try {
      expect(await start()).toEqual({ codeCache: 'absent', health: 200 });

      const writer = await spawnServerProcess([launcher, '--port', '0', '--working-dir', outDir], {
        cwd: outDir,
        env: { ...process.env, AGENT_SERVER_WRITE_CODE_CACHE: '1' },
      });
      expect(await writer.exited).toBe(0);
      expect((await stat(cache)).size).toBeGreaterThan(100_000);

      expect(await start()).toEqual({ codeCache: 'accepted', health: 200 });

      await writeFile(cache, Buffer.alloc(4096, 7));
      expect(await start()).toEqual({ codeCache: 'rejected', health: 200 });
    } finally {
      await rm(cache, { force: true });
    }
  });
});
