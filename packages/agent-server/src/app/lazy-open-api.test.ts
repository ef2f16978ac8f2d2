import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createHttpApp, type HttpApp } from './create-http-app.js';
import { recordLazyOpenApi } from './lazy-open-api.js';

// Counts the loads of `@fastify/swagger` by the code under test (the test's own copy comes from
// vi.importActual, which does not count).
const swaggerModule = vi.hoisted(() => ({ loads: 0 }));
vi.mock('@fastify/swagger', async (importOriginal) => {
  swaggerModule.loads += 1;
  return importOriginal();
});

const OPTIONS: FastifyDynamicSwaggerOptions = {
  openapi: {
    info: { title: 'test', version: '1.0.0' },
    components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'x-key' } } },
    security: [{ key: [] }],
  },
  transform: jsonSchemaTransform,
};

/** Routes of every kind the document must show or leave out. */
async function addRoutes(app: HttpApp): Promise<void> {
  app.get(
    '/items/:id',
    {
      exposeHeadRoute: true,
      schema: {
        params: z.object({ id: z.string() }),
        querystring: z.object({ full: z.boolean().optional() }),
        response: { 200: z.object({ id: z.string(), name: z.string() }) },
        tags: ['items'],
      },
    },
    async (request) => ({ id: request.params.id, name: 'one' }),
  );
  app.post(
    '/items',
    { schema: { body: z.object({ name: z.string().min(1) }), security: [] } },
    async () => ({}),
  );
  app.get('/hidden', { schema: { hide: true } }, async () => ({}));
  await app.register(
    async (scope) => {
      scope.route({ method: ['PUT', 'DELETE'], url: '/both', handler: async () => ({}) });
    },
    { prefix: '/scoped' },
  );
}

const newApp = () => createHttpApp({ logLevel: 'silent', bodyLimit: 1024, requestTimeoutMs: 5000 });

describe('recordLazyOpenApi', () => {
  it("documents the app's routes as @fastify/swagger does, loading it on the first call only", async () => {
    const app = newApp();
    const openApi = recordLazyOpenApi(app, async () => OPTIONS);
    await addRoutes(app);
    await app.ready();
    expect(swaggerModule.loads).toBe(0);

    const document = await openApi.document();
    expect(swaggerModule.loads).toBe(1);
    expect(await openApi.document()).toBe(document);
    expect(Object.keys((document as { paths: object }).paths).sort()).toEqual([
      '/items',
      '/items/{id}',
      '/scoped/both',
    ]);

    // The same routes under @fastify/swagger itself, registered first.
    const { default: swagger } =
      await vi.importActual<typeof import('@fastify/swagger')>('@fastify/swagger');
    const eager = newApp();
    await eager.register(swagger, OPTIONS);
    await addRoutes(eager);
    await eager.ready();
    expect(document).toEqual(eager.swagger());
    expect((await app.inject('/items/7')).json()).toEqual({ id: '7', name: 'one' });
    await Promise.all([app.close(), eager.close()]);
  });

  it('makes its options when the document is first built, once', async () => {
    const app = newApp();
    const makeOptions = vi.fn(async () => OPTIONS);
    const openApi = recordLazyOpenApi(app, makeOptions);
    await addRoutes(app);
    await app.ready();
    expect(makeOptions).not.toHaveBeenCalled();

    const document = (await openApi.document()) as { info: object; paths: object };
    expect(await openApi.document()).toBe(document);
    expect(makeOptions).toHaveBeenCalledTimes(1);
    expect(document.info).toEqual({ title: 'test', version: '1.0.0' });
    expect(Object.keys(document.paths)).toContain('/items/{id}');
    await app.close();
  });
});
