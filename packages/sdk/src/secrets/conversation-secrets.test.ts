import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkspaceError } from '@agent-workspace/core';
import {
  MAX_CONVERSATION_SECRETS,
  MAX_SECRET_VALUE_BYTES,
  SECRET_MASK,
} from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConversationSecrets } from './conversation-secrets.js';

/** A loopback HTTP server answering lookups: `/value`, `/big`, `/redirect`, `/fail`, `/slow`. */
let server: Server;
let base: string;
const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
let counter = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push({ path: request.url ?? '', headers: request.headers });
    if (request.url === '/value') {
      counter += 1;
      response.end(`looked-up-value-${counter}`);
    } else if (request.url?.startsWith('/big')) {
      response.end('x'.repeat(MAX_SECRET_VALUE_BYTES + 1));
    } else if (request.url === '/redirect') {
      response.writeHead(302, { location: '/value' }).end();
    } else if (request.url === '/slow') {
      setTimeout(() => response.end('late-value-xxxx'), 2000);
    } else {
      response.writeHead(500).end('no');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function invalid(run: () => void): WorkspaceError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WorkspaceError);
    return error as WorkspaceError;
  }
  throw new Error('expected a refusal');
}

describe('ConversationSecrets.update', () => {
  it('takes plain strings, {value}, StaticSecret and LookupSecret', async () => {
    const secrets = new ConversationSecrets();
    secrets.update({
      PLAIN: 'plain-value-1234',
      VALUE_ONLY: { value: 'value-only-1234' },
      STATIC: { kind: 'StaticSecret', value: 'static-value-1234', description: 'a token' },
      EMPTY: { kind: 'StaticSecret', value: null },
      LOOKUP: { kind: 'LookupSecret', url: `${base}/value`, headers: { 'X-Token': 'hdr' } },
    });
    expect(secrets.names).toEqual(['EMPTY', 'LOOKUP', 'PLAIN', 'STATIC', 'VALUE_ONLY']);
    const { env } = await secrets.envFor('echo $PLAIN $value_only $STATIC $EMPTY');
    expect(env).toEqual({
      PLAIN: 'plain-value-1234',
      VALUE_ONLY: 'value-only-1234',
      STATIC: 'static-value-1234',
    });
    expect(secrets.mask('plain-value-1234 static-value-1234')).toBe(
      `${SECRET_MASK} ${SECRET_MASK}`,
    );
  });

  it('refuses reserved and malformed names, naming the field', () => {
    for (const name of [
      'PATH',
      'path',
      'LD_PRELOAD',
      'OH_SECRET_KEY',
      'SESSION_API_KEY',
      'BASH_ENV',
    ]) {
      const error = invalid(() => new ConversationSecrets().update({ [name]: 'value-12345678' }));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toContain(`secrets.${name}`);
      expect(error.message).toContain('reserved');
    }
    for (const name of ['1ABC', 'A-B', '', 'A B']) {
      const error = invalid(() => new ConversationSecrets().update({ [name]: 'value-12345678' }));
      expect(error.message).toContain('environment variable name');
    }
  });

  it('refuses malformed sources without echoing values, changing nothing', () => {
    const secrets = new ConversationSecrets();
    secrets.update({ KEEP: 'keep-value-1234' });
    const cases: unknown[] = [
      { kind: 'VaultSecret', value: 'v' },
      { kind: 'LookupSecret', url: 'file:///etc/passwd' },
      { kind: 'LookupSecret' },
      { kind: 'StaticSecret', value: 42 },
      { kind: 'StaticSecret', value: 'x', extra: 1 },
      { kind: 'LookupSecret', url: `${base}/value`, headers: { 'Bad Header': 'x' } },
      { kind: 'LookupSecret', url: `${base}/value`, headers: { X: 'a\r\nInjected: 1' } },
      ['array'],
      7,
    ];
    for (const source of cases) {
      const error = invalid(() => secrets.update({ OK: 'ok-value-12345', BAD: source } as never));
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toContain('secrets.BAD');
    }
    const big = 'v'.repeat(MAX_SECRET_VALUE_BYTES + 1);
    const error = invalid(() => secrets.update({ BIG: big }));
    expect(error.message).toContain('secrets.BIG');
    expect(error.message).not.toContain(big.slice(0, 100));
    expect(secrets.names).toEqual(['KEEP']);
  });

  it(`holds at most ${MAX_CONVERSATION_SECRETS} secrets`, () => {
    const secrets = new ConversationSecrets();
    const many = Object.fromEntries(
      Array.from({ length: MAX_CONVERSATION_SECRETS }, (_, index) => [
        `S${index}`,
        `value-${index}-xxxx`,
      ]),
    );
    secrets.update(many);
    const error = invalid(() => secrets.update({ ONE_MORE: 'one-more-value' }));
    expect(error.message).toContain(`at most ${MAX_CONVERSATION_SECRETS}`);
    // Replacing one is fine.
    secrets.update({ S0: 'replaced-value-xx' });
    // The replaced value is still masked.
    expect(secrets.mask('value-0-xxxx replaced-value-xx')).toBe(`${SECRET_MASK} ${SECRET_MASK}`);
  });
});

describe('ConversationSecrets.envFor', () => {
  it('gives only the secrets a command names', async () => {
    const secrets = new ConversationSecrets();
    secrets.update({ ALPHA_TOKEN: 'alpha-value-123', BETA_TOKEN: 'beta-value-1234' });
    expect((await secrets.envFor('ls -la')).env).toEqual({});
    expect((await secrets.envFor('curl -H "x: $alpha_token"')).env).toEqual({
      ALPHA_TOKEN: 'alpha-value-123',
    });
  });

  it('fetches a LookupSecret once per run with its headers, and masks what it got', async () => {
    const secrets = new ConversationSecrets();
    secrets.update({
      LOOKED: { kind: 'LookupSecret', url: `${base}/value`, headers: { 'X-Auth': 'hdr-secret' } },
    });
    expect(secrets.mask('looked-up-value-')).toBe('looked-up-value-');
    const before = seen.length;
    const first = (await secrets.envFor('echo $LOOKED')).env.LOOKED!;
    const again = (await secrets.envFor('echo $LOOKED')).env.LOOKED;
    expect(again).toBe(first);
    expect(seen.length).toBe(before + 1);
    expect(seen.at(-1)!.headers['x-auth']).toBe('hdr-secret');
    expect(secrets.mask(`got ${first}`)).toBe(`got ${SECRET_MASK}`);
    secrets.beginRun();
    const next = (await secrets.envFor('echo $LOOKED')).env.LOOKED!;
    expect(next).not.toBe(first);
    // Both the old and the new value stay masked.
    expect(secrets.mask(`${first} ${next}`)).toBe(`${SECRET_MASK} ${SECRET_MASK}`);
  });

  it('reports lookups that fail, without the URL path, headers or body', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const secrets = new ConversationSecrets({ lookupTimeoutMs: 500 });
    secrets.update({
      BIG: { kind: 'LookupSecret', url: `${base}/big?token=query-secret` },
      MOVED: { kind: 'LookupSecret', url: `${base}/redirect` },
      BROKEN: {
        kind: 'LookupSecret',
        url: `${base}/fail`,
        headers: { Authorization: 'Bearer hdr' },
      },
      SLOW: { kind: 'LookupSecret', url: `${base}/slow` },
      GONE: { kind: 'LookupSecret', url: `http://127.0.0.1:${closedPort}/value` },
    });
    const { env, failures } = await secrets.envFor('$BIG $MOVED $BROKEN $SLOW $GONE');
    expect(env).toEqual({});
    const reasons = Object.fromEntries(failures.map((failure) => [failure.name, failure.reason]));
    expect(reasons.BIG).toContain(`more than ${MAX_SECRET_VALUE_BYTES} bytes`);
    expect(reasons.MOVED).toContain('redirects are not followed');
    expect(reasons.BROKEN).toContain('HTTP 500');
    expect(reasons.SLOW).toContain('took longer than 500 ms');
    expect(reasons.GONE).toContain('ECONNREFUSED');
    const all = JSON.stringify(failures);
    expect(all).not.toContain('query-secret');
    expect(all).not.toContain('Bearer');
    expect(all).not.toContain('/big');
  });
});
