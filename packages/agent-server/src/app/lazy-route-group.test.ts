import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpApp, type HttpApp } from './create-http-app.js';
import { recordLazyOpenApi } from './lazy-open-api.js';
import { type LazyRouteGroup, registerLazyRouteGroup } from './lazy-route-group.js';

const BODY_LIMIT = 1024;

/** A group under `/things` that counts how often it was made. */
function thingsGroup(): LazyRouteGroup & { made: number } {
  const group = {
    made: 0,
    prefix: '/things',
    methods: ['GET', 'HEAD', 'POST'] as LazyRouteGroup['methods'],
    register: async (app: HttpApp) => {
      group.made += 1;
      app.post(
        '/things',
        { schema: { body: z.object({ name: z.string().min(1) }) } },
        async (request) => ({ made: request.body.name }),
      );
      app.get(
        '/things/:id',
        { exposeHeadRoute: true, schema: { params: z.object({ id: z.string().regex(/^\d+$/) }) } },
        async (request, reply) =>
          reply.header('x-thing', request.params.id).send({ id: request.params.id }),
      );
    },
  };
  return group;
}

describe('registerLazyRouteGroup', () => {
  let app: HttpApp | undefined;
  afterEach(async () => {
    await app?.close();
  });

  /** An owner that asks for a key on every request (as `/api` does), with the group. */
  async function start(group: LazyRouteGroup) {
    app = createHttpApp({ logLevel: 'silent', bodyLimit: BODY_LIMIT, requestTimeoutMs: 5000 });
    const openApi = recordLazyOpenApi(app, async () => ({
      openapi: { info: { title: 'test', version: '1' } },
      transform: jsonSchemaTransform,
    }));
    app.addHook('onRequest', async (request, reply) => {
      if (request.headers['x-key'] !== 'k')
        await reply.status(401).send({ detail: 'Unauthorized' });
      reply.header('x-owner', 'ran');
    });
    await registerLazyRouteGroup(app, group, {
      bodyLimit: BODY_LIMIT,
      bodyLimits: { idleMs: 60_000, minBytesPerSecond: 1 },
      openApi,
    });
    await app.ready();
    return openApi;
  }

  const call = (method: string, url: string, body?: string, key = 'k') =>
    app!.inject({
      method: method as 'GET',
      url,
      headers: { 'x-key': key, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { payload: body }),
    });

  it('makes the group on its first request, after the owner hooks, and serves it as its own', async () => {
    const group = thingsGroup();
    await start(group);
    expect(group.made).toBe(0);

    const refused = await call('POST', '/things', '{"name":"a"}', 'wrong');
    expect(refused.statusCode).toBe(401);
    expect(group.made).toBe(0);

    const made = await call('POST', '/things', '{"name":"a"}');
    expect(made.statusCode).toBe(200);
    expect(made.json()).toEqual({ made: 'a' });
    expect(made.headers['x-owner']).toBe('ran');
    const got = await call('GET', '/things/7');
    expect([got.statusCode, got.json(), got.headers['x-thing']]).toEqual([200, { id: '7' }, '7']);
    expect((await call('HEAD', '/things/7')).statusCode).toBe(200);
    expect(group.made).toBe(1);
  });

  it('answers bad input and unknown paths as the same routes registered on the owner do', async () => {
    const eager = createHttpApp({
      logLevel: 'silent',
      bodyLimit: BODY_LIMIT,
      requestTimeoutMs: 5000,
    });
    await thingsGroup().register(eager);
    await eager.ready();
    await start(thingsGroup());
    const requests: [string, string, string?, string?][] = [
      ['POST', '/things', '{"name":""}'],
      ['POST', '/things', '{"name":'],
      ['POST', '/things', JSON.stringify({ name: 'x'.repeat(BODY_LIMIT) })],
      ['POST', '/things', 'name=a', 'application/x-www-form-urlencoded'],
      ['GET', '/things/x'],
      ['GET', '/things/7/more'],
      ['PUT', '/things'],
      ['DELETE', '/things/7'],
    ];
    try {
      for (const [method, url, body, type] of requests) {
        const request = {
          method: method as 'GET',
          url,
          headers: {
            'x-key': 'k',
            ...(body !== undefined && { 'content-type': type ?? 'application/json' }),
          },
          ...(body !== undefined && { payload: body }),
        };
        const [lazy, direct] = [await app!.inject(request), await eager.inject(request)];
        expect([lazy.statusCode, lazy.json()], `${method} ${url} ${body ?? ''}`).toEqual([
          direct.statusCode,
          direct.json(),
        ]);
        expect(lazy.statusCode).toBeGreaterThanOrEqual(400);
      }
    } finally {
      await eager.close();
    }
  });

  it('refuses to make a group with a route its catch-alls do not lead to', async () => {
    const group = thingsGroup();
    await start({
      ...group,
      register: async (app) => {
        await group.register(app);
        app.put('/things/:id', async () => ({}));
      },
    });
    const answer = await call('GET', '/things/7');
    expect(answer.statusCode).toBe(500);
  });

  it("lists the group's routes in the owner's OpenAPI document, not its catch-alls", async () => {
    const group = thingsGroup();
    const openApi = await start(group);
    const document = (await openApi.document()) as { paths: Record<string, object> };
    expect(Object.keys(document.paths).sort()).toEqual(['/things', '/things/{id}']);
    expect(Object.keys(document.paths['/things/{id}']!)).toEqual(['get']);
  });
});
