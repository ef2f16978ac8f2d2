import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { expectRejection } from '../testing/rejection-of.js';
import { RemoteWorkspace } from './remote-workspace.js';

/** What the double answers and what it was sent. */
interface Double {
  url: string;
  bodies: Array<{ url: string; apiKey: string | undefined; body: unknown }>;
}

type Answer = (url: string, body: unknown, response: ServerResponse) => void;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A real HTTP server on loopback standing in for agent-servers this package cannot start (a
 * test double): ours answering each status, and an OpenHands V1 server without the route.
 */
async function startDouble(answer: Answer): Promise<Double> {
  const bodies: Double['bodies'] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      const body: unknown = text ? JSON.parse(text) : undefined;
      const apiKey = request.headers['x-session-api-key'];
      bodies.push({
        url: request.url ?? '',
        apiKey: typeof apiKey === 'string' ? apiKey : undefined,
        body,
      });
      answer(request.url ?? '', body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function workspaceFor(host: string): RemoteWorkspace {
  const workspace = new RemoteWorkspace({ host, workingDir: '/w', apiKey: 'key-1' });
  cleanups.push(() => workspace.close());
  return workspace;
}

const ipythonObservation = {
  observation: 'run_ipython',
  content: '42',
  extras: { code: '6 * 7', image_urls: null },
};

describe('RemoteWorkspace actions', () => {
  it('posts the action with the session key and answers the typed observation', async () => {
    const double = await startDouble((_url, _body, response) =>
      reply(response, 200, ipythonObservation),
    );
    const workspace = workspaceFor(double.url);
    const observation = await workspace.runIpython('6 * 7', { timeoutSeconds: 5 });
    expect(observation).toMatchObject({ observation: 'run_ipython', content: '42' });
    expect(double.bodies).toEqual([
      {
        url: '/execute_action',
        apiKey: 'key-1',
        body: { action: { action: 'run_ipython', args: { code: '6 * 7' }, timeout: 5 } },
      },
    ]);
  });

  it('answers an error observation as a result, not an exception', async () => {
    const disabled = {
      observation: 'error',
      content: 'The browser plugin is not enabled here',
      extras: { error_id: 'PLUGIN_DISABLED' },
    };
    const double = await startDouble((_url, _body, response) => reply(response, 200, disabled));
    const observation = await workspaceFor(double.url).browse('http://127.0.0.1/', {
      returnAxtree: true,
    });
    expect(observation).toMatchObject(disabled);
    expect(double.bodies[0]?.body).toEqual({
      action: { action: 'browse', args: { url: 'http://127.0.0.1/', return_axtree: true } },
    });
  });

  it('maps refusals to typed errors carrying the reason and the field', async () => {
    const answers: Record<string, [number, unknown]> = {
      message: [422, { detail: 'action.args.url must be an absolute URL' }],
      issues: [
        422,
        { detail: [{ type: 'too_big', loc: ['body', 'action', 'timeout'], msg: 'too big' }] },
      ],
      body: [400, { detail: 'body.action.timeout: Too big: expected number to be <=3600' }],
      bad: [400, { detail: 'no such action' }],
      auth: [401, { detail: 'Unauthorized' }],
      missing: [404, { detail: 'Not Found' }],
      broken: [500, { detail: 'Internal Server Error', exception: 'boom' }],
      wrong: [200, { observation: 'run', content: 'x' }],
    };
    let current = 'message';
    const double = await startDouble((_url, _body, response) => {
      const [status, body] = answers[current] as [number, unknown];
      reply(response, status, body);
    });
    const workspace = workspaceFor(double.url);
    const attempt = (name: string) => {
      current = name;
      return workspace.executeAction({ action: 'browse', args: { url: 'x' } });
    };
    const message = await expectRejection(attempt('message'), 'INVALID_ARGUMENT');
    expect(message.message).toContain('action.args.url must be an absolute URL');
    expect(message.details.field).toBe('action.args.url');
    const issues = await expectRejection(attempt('issues'), 'INVALID_ARGUMENT');
    expect(issues.details.field).toBe('action.timeout');
    const body = await expectRejection(attempt('body'), 'INVALID_ARGUMENT');
    expect(body.details.field).toBe('action.timeout');
    const bad = await expectRejection(attempt('bad'), 'INVALID_ARGUMENT');
    expect(bad.message).toContain('no such action');
    expect(bad.details.field).toBeUndefined();
    await expectRejection(attempt('auth'), 'AUTHENTICATION_ERROR');
    const missing = await expectRejection(attempt('missing'), 'NOT_SUPPORTED');
    expect(missing.message).toContain('/execute_action');
    const broken = await expectRejection(attempt('broken'), 'SERVER_ERROR');
    expect(broken.message).toContain('boom');
    current = 'wrong';
    await expectRejection(workspace.runIpython('1'), 'PROTOCOL_ERROR');
  });

  it('lists the runtime plugins of /server_info', async () => {
    const browser = {
      name: 'browser',
      state: 'ready',
      error: null,
      actions: ['browse', 'browse_interactive'],
      capabilities: ['agent_workspace.plugin.browser_v1'],
      healthy: true,
      memory_bytes: 1024,
    };
    const double = await startDouble((_url, _body, response) =>
      reply(response, 200, { uptime: 1, idle_time: 1, plugins: [browser] }),
    );
    expect(await workspaceFor(double.url).runtimePlugins()).toEqual([browser]);
  });

  it('refuses a bad timeout before sending anything, and an aborted call is ABORTED', async () => {
    const double = await startDouble(() => {
      // Never answers: the call below is aborted.
    });
    const workspace = workspaceFor(double.url);
    const error = await expectRejection(
      workspace.runIpython('1', { timeoutSeconds: 0 }),
      'INVALID_ARGUMENT',
    );
    expect(error.details.field).toBe('timeoutSeconds');
    const controller = new AbortController();
    const pending = workspace.runIpython('1', { signal: controller.signal });
    await vi.waitFor(() => expect(double.bodies).toHaveLength(1));
    controller.abort();
    expect(WorkspaceError.isInstance(await pending.catch((caught) => caught), 'ABORTED')).toBe(
      true,
    );
  });
});
