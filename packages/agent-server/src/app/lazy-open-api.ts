import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import type { HttpApp } from './create-http-app.js';

/** Adds routes to an app: those of a group that the owner serves from an app of its own. */
export type RouteRegistrar = (app: HttpApp) => Promise<void>;

/** The OpenAPI document of an app's routes, built when first asked for. */
export interface LazyOpenApi {
  /** The document; `@fastify/swagger` runs on the first call, later calls reuse its answer. */
  document(): Promise<unknown>;
  /**
   * Documents the routes `register` adds as the app's own (a lazy route group's): they are
   * added, without their handlers running, to the app that builds the document.
   */
  include(register: RouteRegistrar): void;
}

/** Makes `@fastify/swagger`'s options, when the document is built. */
export type MakeSwaggerOptions = () => Promise<FastifyDynamicSwaggerOptions>;

/**
 * Records the routes added to `app` from now on (method, URL, schema, config) and builds their
 * OpenAPI document on the first {@link LazyOpenApi.document} call rather than at start-up:
 * `@fastify/swagger` (and its modules) then runs, with the options `makeOptions` makes then, in
 * an app of its own where the recorded routes are added again without handlers. Hidden routes
 * (`schema.hide`) and the `HEAD` routes Fastify derives are left out, as `@fastify/swagger`
 * leaves them out.
 */
export function recordLazyOpenApi(
  app: FastifyInstance,
  makeOptions: MakeSwaggerOptions,
): LazyOpenApi {
  const routes: RouteOptions[] = [];
  const registrars: RouteRegistrar[] = [];
  app.addHook('onRoute', (route) => {
    if (route.schema?.hide || route.method === 'HEAD') return;
    routes.push(route);
  });
  let document: Promise<unknown> | undefined;
  return {
    document() {
      document ??= buildDocument(routes, registrars, makeOptions).catch((error: unknown) => {
        document = undefined;
        throw error;
      });
      return document;
    },
    include(register) {
      registrars.push(register);
    },
  };
}

async function buildDocument(
  routes: readonly RouteOptions[],
  registrars: readonly RouteRegistrar[],
  makeOptions: MakeSwaggerOptions,
): Promise<unknown> {
  const { default: swagger } = await import('@fastify/swagger');
  const options = await makeOptions();
  const app = Fastify({ logger: false, exposeHeadRoutes: false });
  // Its routes never run: nothing to validate or serialize.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  try {
    await app.register(swagger, options);
    for (const { method, url, schema, config } of routes) {
      app.route({ method, url, schema, config, handler: async () => null });
    }
    for (const register of registrars) {
      await app.register(async (scope) => register(scope as unknown as HttpApp));
    }
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
  }
}
