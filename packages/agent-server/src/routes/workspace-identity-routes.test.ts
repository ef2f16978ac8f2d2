import os from 'node:os';
import { LocalWorkspace, workspaceIdOf } from '@agent-workspace/core';
import {
  AGENT_SERVER_ROUTES,
  SESSION_API_KEY_HEADER,
  workspaceIdentityFromWire,
} from '@agent-workspace/protocol';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';
import { serverProjectionKind, WORKSPACE_PROJECTION_ENV } from './workspace-identity-routes.js';

const started: TestServer[] = [];

async function start(...args: Parameters<typeof startTestServer>): Promise<TestServer> {
  const server = await startTestServer(...args);
  started.push(server);
  return server;
}

afterAll(async () => {
  await Promise.all(started.map((server) => server.close()));
});

describe('GET /api/workspace/identity', () => {
  const environment = { ...process.env };
  afterEach(() => {
    process.env = { ...environment };
  });

  it('answers the identity of the working directory, the one a LocalWorkspace computes', async () => {
    delete process.env[WORKSPACE_PROJECTION_ENV];
    const t = await start({ sessionApiKeys: ['secret'] });
    const response = await fetch(`${t.url}${AGENT_SERVER_ROUTES.workspaceIdentity}`, {
      headers: { [SESSION_API_KEY_HEADER]: 'secret' },
    });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({
      workspace_id: workspaceIdOf({ host: os.hostname(), kind: 'local', anchor: t.dir }),
      anchor: t.dir,
      execution_root: t.dir,
      cwd: t.dir,
      projection_kind: 'canonical',
      access_mode: 'exclusive_write',
    });
    await using local = new LocalWorkspace({ workingDir: t.dir });
    expect(workspaceIdentityFromWire(body)).toEqual(await local.identity());
  });

  it('needs the session key', async () => {
    const t = await start({ sessionApiKeys: ['secret'] });
    const response = await fetch(`${t.url}${AGENT_SERVER_ROUTES.workspaceIdentity}`);
    expect(response.status).toBe(401);
    await response.body?.cancel();
  });

  it('reports a container projection when AGENT_WORKSPACE_PROJECTION=container', async () => {
    process.env[WORKSPACE_PROJECTION_ENV] = 'container';
    const t = await start();
    const response = await fetch(`${t.url}${AGENT_SERVER_ROUTES.workspaceIdentity}`);
    expect(((await response.json()) as { projection_kind: string }).projection_kind).toBe(
      'container',
    );
  });

  it('reads only "container" from the variable; anything else is canonical', () => {
    expect(serverProjectionKind({ [WORKSPACE_PROJECTION_ENV]: 'container' })).toBe('container');
    expect(serverProjectionKind({ [WORKSPACE_PROJECTION_ENV]: 'vm' })).toBe('canonical');
    expect(serverProjectionKind({})).toBe('canonical');
  });

  it('is not served without extensions, like an OpenHands server', async () => {
    const t = await start({ extensions: false });
    const response = await fetch(`${t.url}${AGENT_SERVER_ROUTES.workspaceIdentity}`);
    expect(response.status).toBe(404);
    await response.body?.cancel();
  });
});
