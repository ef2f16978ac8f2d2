import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
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

  it('holds only the script and swagger-ui assets', async () => {
    expect((await readdir(outDir)).sort()).toEqual(['agent-server.mjs', 'static']);
    expect(await readdir(path.join(outDir, 'static'))).toContain('swagger-ui-bundle.js');
  });

  it('runs with plain node and serves health, info and docs', async () => {
    const server = await spawnServerProcess(
      [path.join(outDir, 'agent-server.mjs'), '--port', '0', '--working-dir', outDir],
      { cwd: outDir },
    );
    try {
      expect(await (await fetch(`${server.url}/health`)).json()).toEqual({ status: 'ok' });
      const info = (await (await fetch(`${server.url}/server_info`)).json()) as object;
      expect(info).toMatchObject({ version: VERSION, docs: '/docs' });

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
});
