import { existsSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressAllowList } from './egress-allow-list.js';
import type { EgressRefusal } from './egress-policy.js';
import { EgressProxy } from './egress-proxy.js';
import {
  loopbackHostsName,
  proxiedConnect,
  proxiedGet,
  startEchoTarget,
  startHttpTarget,
  type TestServer,
} from './test-support/egress-targets.js';

/** A port no entry lists (discard). */
const UNLISTED_PORT = 9;
const refusals: EgressRefusal[] = [];
let proxy: EgressProxy;
let web: TestServer;
let echo: TestServer;
const loopbackName = loopbackHostsName();

beforeAll(async () => {
  web = await startHttpTarget('127.0.0.1');
  echo = await startEchoTarget('127.0.0.1');
  const allowHosts = [`127.0.0.1:${web.port}`, `127.0.0.1:${echo.port}`, `localhost:${web.port}`];
  if (loopbackName) allowHosts.push(`${loopbackName}:${web.port}`);
  proxy = await EgressProxy.start({
    allowList: EgressAllowList.parse(allowHosts, 'allowHosts'),
    onRefused: (refusal) => refusals.push(refusal),
  });
});
afterAll(async () => {
  await proxy?.close();
  await web?.[Symbol.asyncDispose]();
  await echo?.[Symbol.asyncDispose]();
});

/** The refusals reported while `run` ran. */
async function refusalsOf(run: () => Promise<unknown>): Promise<EgressRefusal[]> {
  const before = refusals.length;
  await run();
  return refusals.slice(before);
}

describe('EgressProxy', () => {
  it('listens on a unix socket in a directory only its owner can enter', () => {
    expect(statSync(proxy.socketDir).mode & 0o777).toBe(0o700);
    expect(statSync(proxy.socketPath).isSocket()).toBe(true);
  });

  it('forwards plain HTTP requests to a listed host', async () => {
    expect(await proxiedGet(proxy.socketPath, `http://127.0.0.1:${web.port}/a?b=1`, 'me')).toEqual({
      status: 200,
      body: 'reached 127.0.0.1 GET /a?b=1',
    });
    const local = await proxiedGet(proxy.socketPath, `http://LOCALHOST:${web.port}/`);
    expect(local).toEqual({ status: 200, body: 'reached 127.0.0.1 GET /' });
  });

  it('tunnels CONNECT to a listed host and port, half-close included', async () => {
    const answer = await proxiedConnect(proxy.socketPath, `127.0.0.1:${echo.port}`, 'ping');
    expect(answer).toEqual({ status: 200, body: 'echo:ping' });
  });

  it('refuses unlisted hosts and ports with 403 and reports who asked, never the password', async () => {
    let forward = { status: 0, body: '' };
    let tunnel = { status: 0, body: '' };
    const reported = await refusalsOf(async () => {
      forward = await proxiedGet(proxy.socketPath, 'http://example.com/', 'bash:secret-password');
      tunnel = await proxiedConnect(proxy.socketPath, `127.0.0.1:${UNLISTED_PORT}`, 'x', 'kernel');
    });
    expect(forward).toEqual({
      status: 403,
      body: "example.com:80 is not on the sandbox's network allow-list\n",
    });
    expect(tunnel.status).toBe(403);
    expect(tunnel.body).toContain(
      `127.0.0.1:${UNLISTED_PORT} is not on the sandbox's network allow-list`,
    );
    expect(reported).toEqual([
      { host: 'example.com', port: 80, source: 'bash', reason: 'not_allowed' },
      { host: '127.0.0.1', port: UNLISTED_PORT, source: 'kernel', reason: 'not_allowed' },
    ]);
    expect(JSON.stringify(reported)).not.toContain('secret');
  });

  it('reports a source that is not a valid one as undefined', async () => {
    const reported = await refusalsOf(async () => {
      await proxiedGet(proxy.socketPath, 'http://example.com/', 'a\u00e9b');
      await proxiedGet(proxy.socketPath, 'http://example.com/');
    });
    expect(reported.map((refusal) => refusal.source)).toEqual([undefined, undefined]);
  });

  it('refuses IPv4 addresses in other spellings even when the address is listed', async () => {
    const odd = ['127.1', '0x7f000001', '2130706433', '0177.0.0.1', '127.0.0.1.'];
    const answers: number[] = [];
    const reported = await refusalsOf(async () => {
      for (const host of odd) {
        answers.push((await proxiedGet(proxy.socketPath, `http://${host}:${web.port}/`)).status);
        answers.push((await proxiedConnect(proxy.socketPath, `${host}:${echo.port}`, 'x')).status);
      }
    });
    expect(answers).toEqual(odd.flatMap(() => [403, 403]));
    expect(reported.map((refusal) => refusal.reason)).toEqual(
      odd.flatMap(() => ['non_canonical_address', 'non_canonical_address']),
    );
  });

  it('sends a forward request with the Host of its URL, whatever Host the client gave', async () => {
    const url = `http://127.0.0.1:${web.port}/host`;
    const answer = await proxiedGet(proxy.socketPath, url, 'bash', { host: 'other.example' });
    expect(answer).toEqual({ status: 200, body: `host 127.0.0.1:${web.port}` });
  });

  it('does not let a listed address stand for a name, nor localhost. for 127.0.0.1', async () => {
    const reported = await refusalsOf(async () => {
      expect(
        (await proxiedGet(proxy.socketPath, `http://[::ffff:127.0.0.1]:${web.port}/`)).status,
      ).toBe(403);
      expect((await proxiedConnect(proxy.socketPath, `localhost.:${echo.port}`, 'x')).status).toBe(
        403,
      );
    });
    expect(reported.map((refusal) => refusal.reason)).toEqual(['not_allowed', 'not_allowed']);
  });

  it.skipIf(loopbackName === undefined)(
    'refuses a listed name (other than localhost) that resolves to loopback',
    async () => {
      const reported = await refusalsOf(async () => {
        const answer = await proxiedGet(
          proxy.socketPath,
          `http://${loopbackName}:${web.port}/`,
          'bash',
        );
        expect(answer.status).toBe(403);
        expect(answer.body).toContain('resolves to a loopback');
      });
      expect(reported).toEqual([
        { host: loopbackName, port: web.port, source: 'bash', reason: 'loopback_address' },
      ]);
    },
  );

  it('closes its connections and removes its socket directory on close(), idempotently', async () => {
    const own = await EgressProxy.start({
      allowList: EgressAllowList.parse([`127.0.0.1:${echo.port}`], 'allowHosts'),
    });
    const open = connect(own.socketPath);
    await new Promise((resolve) => open.once('connect', resolve));
    const closed = new Promise((resolve) => open.once('close', resolve));
    await Promise.all([own.close(), own[Symbol.asyncDispose]()]);
    await closed;
    expect(existsSync(own.socketDir)).toBe(false);
  });
});
