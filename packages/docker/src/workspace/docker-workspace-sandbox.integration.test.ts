/**
 * A DockerWorkspace whose agent-server runs the agent's commands in its bubblewrap sandbox with
 * an egress allow-list: listed hosts are reached through the server's proxy, other hosts are
 * refused (and logged with the command), direct connections have no route, and no key is in the
 * commands' environment.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { DockerWorkspace } from './docker-workspace.js';
import type { DockerWorkspaceOptions } from './docker-workspace-options.js';
import { readContainerLogs } from './read-container-logs.js';
import { dockerTestContext } from './test-support/docker-test-context.js';

const context = dockerTestContext();
const workspaces: DockerWorkspace[] = [];
const servers: Server[] = [];
let listedPort: number;
let unlistedPort: number;

/** An HTTP server on every interface of this machine answering `body`. */
async function serve(body: string): Promise<number> {
  const server = createServer((_request, response) => response.end(body));
  servers.push(server);
  server.listen(0, '0.0.0.0');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  if (context.skipReason) return;
  listedPort = await serve('listed-ok\n');
  unlistedPort = await serve('unlisted-leak\n');
});
afterEach(async () => {
  await Promise.allSettled(workspaces.splice(0).map((workspace) => workspace.close()));
});
afterAll(async () => {
  await context.removeAll();
  for (const server of servers) server.close();
});

async function create(extra: Partial<DockerWorkspaceOptions>): Promise<DockerWorkspace> {
  const workspace = await DockerWorkspace.create({
    image: context.image,
    ...extra,
    labels: context.labels,
  });
  workspaces.push(workspace);
  return workspace;
}

/** The address at which a container on Docker's default bridge reaches this machine. */
async function hostGateway(workspace: DockerWorkspace): Promise<string> {
  const info = await context.docker.getContainer(workspace.containerName).inspect();
  const gateway = info.NetworkSettings.Networks.bridge?.Gateway ?? '';
  expect(gateway).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  return gateway;
}

/**
 * A shell script that sends `GET http://<host>:<port>/` through the sandbox's proxy with bash
 * alone (the image has no curl), with the proxy user of `HTTP_PROXY` as curl would send it, and
 * prints the status line and the body's last line.
 */
function throughProxy(host: string, port: number): string {
  const target = `${host}:${port}`;
  return [
    'proxy=$(printf %s "$HTTP_PROXY" | cut -d: -f3)',
    'user=$(printf %s "$HTTP_PROXY" | sed "s|^http://||; s|@.*||")',
    'credentials=$(printf "%s:" "$user" | base64)',
    'exec 3<>/dev/tcp/127.0.0.1/$proxy',
    `printf 'GET http://${target}/ HTTP/1.1\\r\\nHost: ${target}\\r\\nProxy-Authorization: Basic %s\\r\\nConnection: close\\r\\n\\r\\n' "$credentials" >&3`,
    'answer=$(cat <&3)',
    'printf "%s\\n" "$answer" | head -1',
    'printf "%s\\n" "$answer" | tail -1',
  ].join('; ');
}

context.describe('DockerWorkspace sandbox', () => {
  it('lets sandboxed commands reach only the allow-list, through the proxy, and logs refusals', async () => {
    const probe = await create({ sandbox: { network: false } });
    const gateway = await hostGateway(probe);
    await probe.close();
    const workspace = await create({ sandbox: { allowHosts: [`${gateway}:${listedPort}`] } });

    const listed = await workspace.executeCommand(throughProxy(gateway, listedPort));
    expect(listed.stdout).toMatch(/^HTTP\/1\.1 200 OK\r?\nlisted-ok\n$/);

    const unlisted = await workspace.executeCommand(throughProxy(gateway, unlistedPort));
    expect(unlisted.stdout).toContain('HTTP/1.1 403');
    expect(unlisted.stdout).toContain('is not on the sandbox');
    expect(unlisted.stdout).not.toContain('unlisted-leak');

    const direct = await workspace.executeCommand(
      `exec 3<>/dev/tcp/${gateway}/${unlistedPort} && echo connected`,
    );
    expect(direct.stdout).not.toContain('connected');
    expect(direct.stderr).toMatch(/unreachable|refused/i);

    const environment = await workspace.executeCommand('env');
    expect(environment.stdout).not.toMatch(/SESSION_API_KEY/);
    expect(environment.stdout).toMatch(
      /^HTTPS_PROXY=http:\/\/command-[0-9a-f]{32}@127\.0\.0\.1:\d+$/m,
    );

    const info = (await (await fetch(`${workspace.host}/server_info`)).json()) as {
      trust_boundary: unknown;
    };
    expect(info.trust_boundary).toMatchObject({
      code_execution: 'sandbox',
      network: 'allow_list',
      allowed_hosts: [`${gateway}:${listedPort}`],
    });
    const logs = await readContainerLogs({
      docker: context.docker,
      container: context.docker.getContainer(workspace.containerName),
      tailLines: 200,
    });
    expect(logs).toMatch(
      new RegExp(
        `"host":"${gateway.replaceAll('.', '\\.')}","port":${unlistedPort},"source":"command-[0-9a-f]{32}","reason":"not_allowed"`,
      ),
    );
  });

  it('gives sandboxed commands no network with network: false', async () => {
    const workspace = await create({ sandbox: { network: false } });
    const gateway = await hostGateway(workspace);
    const direct = await workspace.executeCommand(
      `exec 3<>/dev/tcp/${gateway}/${listedPort} && echo connected`,
    );
    expect(direct.stdout).not.toContain('connected');
    const environment = await workspace.executeCommand('env');
    expect(environment.stdout).not.toMatch(/HTTPS?_PROXY/);
    // The working directory is the sandbox's; the rest of the container is hidden or read-only.
    const files = await workspace.executeCommand(
      'touch /workspace/made && echo made; touch /opt/agent-server/x 2>/dev/null || echo server-read-only; ls /home/agent | wc -l',
    );
    expect(files.stdout).toBe('made\nserver-read-only\n0\n');
  });
});
