import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  AGENT_SERVER_ROUTES,
  DIRECTORY_ARCHIVE_CAPABILITY,
  DIRECTORY_LISTING_CAPABILITY,
  EXEC_STREAM_CAPABILITY,
  EXECUTE_ACTION_CAPABILITY,
  FILE_WATCH_CAPABILITY,
  PORT_PROXY_CAPABILITY,
  SESSION_API_KEY_HEADER,
  serverInfoFromWire,
  WORKSPACE_IDENTITY_CAPABILITY,
  WORKSPACE_METRICS_CAPABILITY,
} from '@agent-workspace/protocol';
import { TOOL_NAMES } from '@agent-workspace/sdk';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { resolveAgentServerOptions } from '../agent-server-options.js';
import { describeTrustBoundary, UNCONFINED_CODE_WARNING } from '../app/describe-trust-boundary.js';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';
import { VERSION } from '../version.js';
import { CONFINE_TO_WORKING_DIR_CAPABILITY } from './server-details-routes.js';

const started: TestServer[] = [];

async function start(...args: Parameters<typeof startTestServer>): Promise<TestServer> {
  const server = await startTestServer(...args);
  started.push(server);
  return server;
}

async function getJson(url: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.json() };
}

afterAll(async () => {
  await Promise.all(started.map((server) => server.close()));
});

describe('server details routes', () => {
  const environment = { ...process.env };
  afterEach(() => {
    process.env = { ...environment };
  });

  it('answers health and readiness without a session key', async () => {
    const t = await start({ sessionApiKeys: ['secret'] });
    expect(await getJson(`${t.url}/alive`)).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await getJson(`${t.url}/health`)).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await getJson(`${t.url}/ready`)).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('reports server info at /server_info, and at / when the web page is off', async () => {
    delete process.env.AGENT_SERVER_BUILD_GIT_SHA;
    delete process.env.AGENT_SERVER_BUILD_GIT_REF;
    process.env.OPENHANDS_BUILD_GIT_SHA = 'abc123';
    process.env.OPENHANDS_BUILD_GIT_REF = 'refs/heads/legacy';
    const t = await start({ sessionApiKeys: ['secret'], ui: false });
    const expected = {
      uptime: 0,
      idle_time: 0,
      title: 'OpenHands Agent Server',
      version: VERSION,
      sdk_version: 'unknown',
      tools_version: 'unknown',
      workspace_version: 'unknown',
      build_git_sha: 'abc123',
      build_git_ref: 'refs/heads/legacy',
      python_version: null,
      usable_tools: [...TOOL_NAMES],
      runtime_idle_timeout_seconds: null,
      capabilities: [
        EXEC_STREAM_CAPABILITY,
        WORKSPACE_IDENTITY_CAPABILITY,
        EXECUTE_ACTION_CAPABILITY,
        DIRECTORY_ARCHIVE_CAPABILITY,
        DIRECTORY_LISTING_CAPABILITY,
        FILE_WATCH_CAPABILITY,
        WORKSPACE_METRICS_CAPABILITY,
        PORT_PROXY_CAPABILITY,
      ],
      max_foreground_terminal_timeout_seconds: null,
      docs: '/docs',
      redoc: '/docs',
      plugins: [],
      resources: {
        server_rss_bytes: expect.any(Number),
        process_trees: [],
        process_tree_memory_limit_bytes: null,
      },
      trust_boundary: {
        paths: 'unconfined',
        code_execution: 'unconfined',
        network: 'host',
        allowed_hosts: [],
        warnings: [expect.stringContaining('paths are not confined'), UNCONFINED_CODE_WARNING],
      },
    };
    for (const route of ['/server_info', '/']) {
      const { status, body } = await getJson(`${t.url}${route}`);
      expect(status).toBe(200);
      expect(body).toEqual({
        ...expected,
        uptime: expect.any(Number),
        idle_time: expect.any(Number),
      });
      const { uptime, idle_time } = body as { uptime: number; idle_time: number };
      expect([uptime, idle_time].every(Number.isInteger)).toBe(true);
      // Our own client parses it.
      expect(serverInfoFromWire(body).capabilities).toEqual([
        EXEC_STREAM_CAPABILITY,
        WORKSPACE_IDENTITY_CAPABILITY,
        EXECUTE_ACTION_CAPABILITY,
        DIRECTORY_ARCHIVE_CAPABILITY,
        DIRECTORY_LISTING_CAPABILITY,
        FILE_WATCH_CAPABILITY,
        WORKSPACE_METRICS_CAPABILITY,
        PORT_PROXY_CAPABILITY,
      ]);
    }
  });

  it('lists in usable_tools the tools GET /api/tools/ offers', async () => {
    const t = await start({ sessionApiKeys: ['secret'] });
    const tools = await fetch(`${t.url}${AGENT_SERVER_ROUTES.tools}`, {
      headers: { [SESSION_API_KEY_HEADER]: 'secret' },
    });
    expect(tools.status).toBe(200);
    const offered = (await tools.json()) as string[];
    expect(offered).toEqual(expect.arrayContaining(['TerminalTool', 'FileEditorTool']));
    const { body } = await getJson(`${t.url}${AGENT_SERVER_ROUTES.serverInfo}`);
    expect((body as { usable_tools: unknown }).usable_tools).toEqual(offered);
    expect(serverInfoFromWire(body).usableTools).toEqual(offered);
  });

  it('prefers the AGENT_SERVER_BUILD_GIT_* variables', async () => {
    process.env.AGENT_SERVER_BUILD_GIT_SHA = 'def456';
    process.env.AGENT_SERVER_BUILD_GIT_REF = 'v1.2.3';
    process.env.OPENHANDS_BUILD_GIT_SHA = 'abc123';
    const t = await start();
    expect((await getJson(`${t.url}/server_info`)).body).toMatchObject({
      build_git_sha: 'def456',
      build_git_ref: 'v1.2.3',
    });
  });

  it('announces capabilities by options', async () => {
    const capabilities = async (options: Parameters<typeof startTestServer>[0]) => {
      const t = await start(options);
      return ((await getJson(`${t.url}/server_info`)).body as { capabilities: string[] })
        .capabilities;
    };
    expect(await capabilities({ confineToWorkingDir: true })).toEqual([
      EXEC_STREAM_CAPABILITY,
      WORKSPACE_IDENTITY_CAPABILITY,
      EXECUTE_ACTION_CAPABILITY,
      DIRECTORY_ARCHIVE_CAPABILITY,
      DIRECTORY_LISTING_CAPABILITY,
      FILE_WATCH_CAPABILITY,
      WORKSPACE_METRICS_CAPABILITY,
      PORT_PROXY_CAPABILITY,
      CONFINE_TO_WORKING_DIR_CAPABILITY,
    ]);
    expect(await capabilities({ extensions: false, confineToWorkingDir: true })).toEqual([]);
  });

  it('says what confines paths, code execution and network in trust_boundary', async () => {
    const boundary = async (options: Parameters<typeof startTestServer>[0]) => {
      const t = await start(options);
      const { body } = await getJson(`${t.url}/server_info`);
      expect(serverInfoFromWire(body).trustBoundary).toEqual(
        (body as Record<string, unknown>).trust_boundary,
      );
      return (body as { trust_boundary: unknown }).trust_boundary;
    };
    expect(await boundary({ confineToWorkingDir: true })).toEqual({
      paths: 'confined',
      code_execution: 'unconfined',
      network: 'host',
      allowed_hosts: [],
      warnings: [UNCONFINED_CODE_WARNING],
    });
    // Options decide it; the sandbox itself is started (and checked) by the sandboxed suites.
    expect(
      describeTrustBoundary(
        resolveAgentServerOptions({ sandbox: { allowHosts: ['registry.npmjs.org'] } }),
      ),
    ).toEqual({
      paths: 'confined',
      code_execution: 'sandbox',
      network: 'allow_list',
      allowed_hosts: ['registry.npmjs.org'],
      warnings: [],
    });
    expect(
      describeTrustBoundary(resolveAgentServerOptions({ sandbox: { network: false } })),
    ).toMatchObject({ network: 'none', warnings: [] });
    expect(describeTrustBoundary(resolveAgentServerOptions({ sandbox: {} }))).toMatchObject({
      network: 'host',
      warnings: [expect.stringContaining('shares the host network')],
    });
  });

  it('reports watched command trees and the memory limit in resources', async () => {
    const t = await start({ processTreeMemoryLimitBytes: 1024 ** 3 });
    const running = fetch(`${t.url}/api/bash/execute_bash_command`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'sleep 2', timeout: 30 }),
    });
    await vi.waitFor(async () => {
      const { body } = await getJson(`${t.url}/server_info`);
      const { resources } = body as {
        resources: {
          process_trees: { label: string; rss_bytes: number }[];
          process_tree_memory_limit_bytes: number;
        };
      };
      expect(resources.process_tree_memory_limit_bytes).toBe(1024 ** 3);
      expect(resources.process_trees).toEqual([
        {
          label: expect.stringMatching(/^command [0-9a-f]{32}$/),
          pid: expect.any(Number),
          rss_bytes: expect.any(Number),
        },
      ]);
    });
    await running;
  });

  it('counts file and git calls, not health checks, as activity for idle_time', async () => {
    const control = await start();
    const routes = ['/api/file/download', '/api/git/changes', '/api/git/diff', '/api/file/upload'];
    const servers = await Promise.all(routes.map(() => start()));
    await new Promise((resolve) => setTimeout(resolve, 1100));

    for (const [index, route] of routes.entries()) {
      const t = servers[index] as TestServer;
      const file = path.join(t.dir, 'file.txt');
      await writeFile(file, 'x');
      const query = new URLSearchParams({ path: route.includes('changes') ? t.dir : file });
      const init = route.endsWith('upload') ? { method: 'POST', body: new FormData() } : {};
      await fetch(`${t.url}${route}?${query}`, init);
      expect((await getJson(`${t.url}/server_info`)).body, route).toMatchObject({ idle_time: 0 });
    }
    await getJson(`${control.url}/health`);
    const { body } = await getJson(`${control.url}/server_info`);
    expect((body as { idle_time: number }).idle_time).toBeGreaterThanOrEqual(1);
    expect((body as { uptime: number }).uptime).toBeGreaterThanOrEqual(1);
  });
});
