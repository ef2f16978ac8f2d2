import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpApp } from './create-http-app.js';

describe('createHttpApp', () => {
  it("validates and serializes with zod, loading none of Fastify's own schema compilers", async () => {
    const app = createHttpApp({ logLevel: 'silent', bodyLimit: 1024, requestTimeoutMs: 5000 });
    app.get(
      '/double',
      {
        schema: {
          querystring: z.object({ n: z.coerce.number().int() }),
          response: { 200: z.object({ doubled: z.number() }) },
        },
      },
      async (request) => ({ doubled: request.query.n * 2, dropped: 'not in the schema' }),
    );
    await app.ready();
    const answer = await app.inject('/double?n=21');
    expect(answer.json()).toEqual({ doubled: 42 });
    expect((await app.inject('/double?n=half')).statusCode).toBe(422);
    await app.close();

    // This file's process loaded Fastify, but not ajv or fast-json-stringify's compiler.
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    expect(loaded.some((file) => file.includes('/fastify/fastify.js'))).toBe(true);
    expect(loaded.filter((file) => /ajv-compiler|fast-json-stringify-compiler/.test(file))).toEqual(
      [],
    );
  });
});
