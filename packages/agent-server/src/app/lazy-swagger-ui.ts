import type { FastifyInstance } from 'fastify';
import type { HttpApp } from './create-http-app.js';
import { createLazyApp, handToLazyApp } from './hand-to-lazy-app.js';

/** Options of {@link registerLazySwaggerUi}. */
export interface LazySwaggerUiOptions {
  /** Where the UI is served, e.g. `/docs`. */
  routePrefix: string;
  /** The OpenAPI document the UI shows; read on the first request. */
  document: () => Promise<unknown>;
  /** swagger-ui's asset folder; default the package's own (see `swaggerUiBaseDir`). */
  baseDir?: string | undefined;
}

/**
 * Serves the Swagger UI at `routePrefix` and below, built on the first request rather than at
 * start-up: `@fastify/swagger-ui` (its static file routes, its modules) is loaded then, in an
 * app of its own showing `document()`, and every request under the prefix is handed to it.
 */
export function registerLazySwaggerUi(
  app: HttpApp,
  { routePrefix, document, baseDir }: LazySwaggerUiOptions,
): void {
  const serve = handToLazyApp({
    owner: app,
    build: () => buildSwaggerUi({ routePrefix, document, baseDir }),
  });
  const hidden = { exposeHeadRoute: true, schema: { hide: true } };
  app.get(routePrefix, hidden, serve);
  app.get(`${routePrefix}/*`, hidden, serve);
}

async function buildSwaggerUi({
  routePrefix,
  document,
  baseDir,
}: LazySwaggerUiOptions): Promise<FastifyInstance> {
  const [{ default: swagger }, { default: swaggerUi }] = await Promise.all([
    import('@fastify/swagger'),
    import('@fastify/swagger-ui'),
  ]);
  const server = createLazyApp();
  await server.register(swagger, {
    mode: 'static',
    specification: { document: (await document()) as never },
  });
  await server.register(swaggerUi, { routePrefix, ...(baseDir ? { baseDir } : {}) });
  await server.ready();
  return server;
}
