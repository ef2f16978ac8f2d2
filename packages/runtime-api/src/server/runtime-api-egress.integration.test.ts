/**
 * The Runtime API's egress policy on the Docker backend: every session's agent-server sandboxes
 * the agent's commands with the operator's allow-list (`allowHosts`), a `/start` may narrow it
 * (`allow_hosts`) but not widen it, and the agent-server in the container enforces it.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DockerRuntimeBackend } from '../backend/docker-runtime-backend.js';
import { remoteApiTestContext } from '../test-support/remote-api-test-context.js';
import { runtimeApiServerFixture } from '../test-support/runtime-api-server-fixture.js';
import { issueLocs, runOnAgentServer } from './test-support/runtime-api-call.js';

const context = remoteApiTestContext();
const servers: Server[] = [];
/** Where a container on Docker's default bridge reaches this machine (read in `beforeAll`). */
let GATEWAY = '';
let listedPort = 0;
let otherPort = 0;

async function serve(body: string): Promise<number> {
  const server = createServer((_request, response) => response.end(body));
  servers.push(server);
  server.listen(0, '0.0.0.0');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  if (context.skipReason) return;
  // The default bridge's gateway: given, or (as Docker picks it) the subnet's first address.
  const config = (await context.docker.getNetwork('bridge').inspect()).IPAM?.Config?.[0];
  const subnet = /^(\d+\.\d+\.\d+)\.0\/\d+$/.exec(config?.Subnet ?? '')?.[1];
  GATEWAY = config?.Gateway ?? (subnet === undefined ? '' : `${subnet}.1`);
  expect(GATEWAY).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  listedPort = await serve('listed-ok\n');
  otherPort = await serve('other-leak\n');
});
afterAll(() => {
  for (const server of servers) server.close();
});

/** A bash script asking `GET http://<GATEWAY>:<port>/` through the sandbox's proxy (no curl in the image). */
function throughProxy(port: number): string {
  const target = `${GATEWAY}:${port}`;
  return [
    'proxy=$(printf %s "$HTTP_PROXY" | cut -d: -f3)',
    'exec 3<>/dev/tcp/127.0.0.1/$proxy',
    `printf 'GET http://${target}/ HTTP/1.1\\r\\nHost: ${target}\\r\\nConnection: close\\r\\n\\r\\n' >&3`,
    'cat <&3 | head -1',
  ].join('; ');
}

context.describe('Runtime API egress allow-list (Docker backend)', () => {
  const runtimeApi = runtimeApiServerFixture(context, {
    backend: new DockerRuntimeBackend({ namespace: context.namespace }),
    images: [context.image],
    // Read when the fixture starts the server, after the file's `beforeAll` knows the ports.
    get allowHosts() {
      return [`${GATEWAY}:${listedPort}`, `${GATEWAY}:${otherPort}`];
    },
  });

  /** Runs `command` on the session's agent-server and answers its standard output. */
  async function run(url: string, key: string, command: string): Promise<string> {
    const ran = await runOnAgentServer(url, key, command);
    expect(ran.status).toBe(200);
    return ran.json.stdout ?? '';
  }

  it('refuses allow_hosts that widen the operator list, and malformed ones, naming the entry', async () => {
    const wider = await runtimeApi.api('/start', {
      body: {
        image: context.image,
        session_id: `egress-${randomUUID()}`,
        allow_hosts: [`${GATEWAY}:${listedPort}`, 'example.com'],
      },
    });
    expect(wider.status).toBe(422);
    expect(issueLocs(wider)).toEqual([['body', 'allow_hosts', 1]]);
    expect(wider.text).toContain('not covered');
    const malformed = await runtimeApi.api('/start', {
      body: { image: context.image, session_id: `egress-${randomUUID()}`, allow_hosts: ['a b'] },
    });
    expect(malformed.status).toBe(422);
    expect(issueLocs(malformed)).toEqual([['body', 'allow_hosts', 0]]);
  });

  it('sandboxes every session with the allow-list, narrowed by its /start', async () => {
    const sessionId = `egress-${randomUUID()}`;
    const started = await runtimeApi.api('/start', {
      body: {
        image: context.image,
        session_id: sessionId,
        allow_hosts: [`${GATEWAY}:${listedPort}`],
      },
    });
    expect(started.status).toBe(201);
    const { url, session_api_key: key } = (await runtimeApi.ready(sessionId)).json as {
      url: string;
      session_api_key: string;
    };
    expect(await run(url, key, throughProxy(listedPort))).toMatch(/^HTTP\/1\.1 200/);
    expect(await run(url, key, throughProxy(otherPort))).toMatch(/^HTTP\/1\.1 403/);
    expect(await run(url, key, `exec 3<>/dev/tcp/${GATEWAY}/${otherPort} && echo connected`)).toBe(
      '',
    );
    const info = (await (await fetch(`${url}/server_info`)).json()) as {
      trust_boundary: unknown;
    };
    expect(info.trust_boundary).toMatchObject({
      network: 'allow_list',
      allowed_hosts: [`${GATEWAY}:${listedPort}`],
    });
    await runtimeApi.api('/stop', { body: { runtime_id: started.json.runtime_id } });
  });
});
