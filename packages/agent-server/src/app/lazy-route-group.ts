import type { FastifyContextConfig, FastifyInstance, RouteOptions } from 'fastify';
import { createHandedRequestApp, type HttpApp } from './create-http-app.js';
import { handToLazyApp, passBodiesThrough } from './hand-to-lazy-app.js';
import type { LazyOpenApi } from './lazy-open-api.js';
import {
  type BodyWatchedElsewhere,
  type RequestBodyLimits,
  watchRequestBody,
} from './watch-request-body.js';

/** Routes that share a path prefix and are not needed before a first command. */
export interface LazyRouteGroup {
  /** The path every route of the group is under (an `AGENT_SERVER_ROUTE_PREFIXES` entry). */
  prefix: string;
  /**
   * The methods its routes answer (`HEAD` where a route sets `exposeHeadRoute`); another
   * method is the owner's to answer. Never `OPTIONS`, the owner's CORS preflight.
   */
  methods: ('DELETE' | 'GET' | 'HEAD' | 'PATCH' | 'POST' | 'PUT')[];
  /** Adds the group's routes, and any plugin only they use, to `app`. */
  register: (app: HttpApp) => Promise<void>;
}

/** Options of {@link registerLazyRouteGroup}. */
export interface RegisterLazyRouteGroupOptions {
  /** Largest JSON body, in bytes (the owner's). */
  bodyLimit: number;
  /**
   * The owner's limits on a slow or stalled body: the group's app watches the bodies, so the
   * 408 goes out on the reply that answers the request.
   */
  bodyLimits: RequestBodyLimits;
  /** The owner's OpenAPI document, which lists the group's routes as its own. */
  openApi: LazyOpenApi;
}

/**
 * Registers `group` on `scope` as two routes, `<prefix>` and `<prefix>/*`, for its methods. Their
 * requests go, as they came (body unread), to an app made on the first of them
 * (`handToLazyApp`, `createHandedRequestApp`): a start registers neither the group's routes nor
 * its plugins, and loads its modules on first use. `scope`'s hooks (session key, deferred init,
 * CORS) run first; the group's app answers the rest in the same envelope, 404 included for a
 * path under the prefix that none of its routes serves. The OpenAPI document lists its routes.
 */
export function registerLazyRouteGroup(
  scope: FastifyInstance,
  group: LazyRouteGroup,
  { bodyLimit, bodyLimits, openApi }: RegisterLazyRouteGroupOptions,
): Promise<void> {
  openApi.include(group.register);
  return scope.register(async (owner) => {
    passBodiesThrough(owner);
    const handOn = handToLazyApp({
      owner,
      build: async () => {
        const app = createHandedRequestApp({ owner, bodyLimit });
        // A route the catch-alls do not lead to would never be reached.
        app.addHook('onRoute', (route) => assertReachable(group, route));
        app.addHook('onRequest', async (request, reply) => {
          watchRequestBody(request, reply, bodyLimits);
        });
        await group.register(app);
        await app.ready();
        return app as unknown as FastifyInstance;
      },
    });
    const watched: BodyWatchedElsewhere = { bodyWatchedElsewhere: true };
    const config = watched as FastifyContextConfig;
    for (const url of [group.prefix, `${group.prefix}/*`]) {
      owner.route({ method: group.methods, url, schema: { hide: true }, config, handler: handOn });
    }
  }) as unknown as Promise<void>;
}

/** Throws when `route` is outside `group`'s prefix or answers a method the group does not list. */
function assertReachable(group: LazyRouteGroup, route: RouteOptions): void {
  const { prefix, methods } = group;
  const methodsOf = Array.isArray(route.method) ? route.method : [route.method];
  const outside = route.url !== prefix && !route.url.startsWith(`${prefix}/`);
  const unlisted = methodsOf.filter((method) => !(methods as string[]).includes(method));
  if (outside || unlisted.length > 0) {
    throw new Error(
      `route ${methodsOf.join(',')} ${route.url} is not reached through the ${prefix} group (methods ${methods.join(', ')})`,
    );
  }
}
