import {
  GIT_CHANGES_TRUNCATED_HEADER,
  httpErrorBody,
  INIT_API_KEY_HEADER,
  SESSION_API_KEY_HEADER,
} from '@agent-workspace/protocol';
import cors from '@fastify/cors';
import websocket from '@fastify/websocket';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import type { ResolvedAgentServerOptions } from '../agent-server-options.js';
import { registerActionRoutes } from '../routes/action-routes.js';
import { registerArchiveRoutes } from '../routes/archive-routes.js';
import { registerBashRoutes } from '../routes/bash-routes.js';
import { registerDirectoryListingRoutes } from '../routes/directory-listing-routes.js';
import { INIT_API_KEY_SECURITY_SCHEME, registerInitRoutes } from '../routes/init-routes.js';
import { lazyRouteGroups } from '../routes/lazy-route-groups.js';
import { registerPluginRoutes } from '../routes/plugin-routes.js';
import { registerPortProxyRoutes } from '../routes/port-proxy-routes.js';
import { registerServerDetailsRoutes } from '../routes/server-details-routes.js';
import { registerToolRoutes } from '../routes/tool-routes.js';
import { registerUiRoutes, uiDistDir } from '../routes/ui-routes.js';
import { registerWorkspaceIdentityRoutes } from '../routes/workspace-identity-routes.js';
import { registerWorkspaceMetricsRoutes } from '../routes/workspace-metrics-routes.js';
import { registerBashEventsSocket } from '../sockets/bash-events-socket.js';
import { registerEventsSocket } from '../sockets/events-socket.js';
import { registerExecSocket } from '../sockets/exec-socket.js';
import { registerFileWatchSocket } from '../sockets/file-watch-socket.js';
import { VERSION } from '../version.js';
import { createHttpApp, type HttpApp } from './create-http-app.js';
import { requireInitialized } from './deferred-init.js';
import { isAllowedOrigin } from './is-allowed-origin.js';
import { recordLazyOpenApi } from './lazy-open-api.js';
import { registerLazyRouteGroup } from './lazy-route-group.js';
import { registerLazySwaggerUi } from './lazy-swagger-ui.js';
import type { ServerContext } from './server-context.js';
import { SESSION_KEY_HEADER_NAME } from './session-auth.js';
import { swaggerUiBaseDir } from './swagger-ui-base-dir.js';
import { watchRequestBody } from './watch-request-body.js';

/** Largest JSON request body: a command (128 KiB) and its environment (256 KiB) fit easily. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/** Largest websocket frame a client may send (stdin data, commands). */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** The agent-server's Fastify app with its limits and logger, before any plugin or route. */
export function createAgentServerApp(options: ResolvedAgentServerOptions): HttpApp {
  return createHttpApp({
    logLevel: options.logLevel,
    bodyLimit: MAX_JSON_BODY_BYTES,
    requestTimeoutMs: options.requestTimeoutSeconds * 1000,
    maxConnections: options.maxConnections,
    // As in OpenHands, `GET` routes do not answer `HEAD`, but for those that set
    // `exposeHeadRoute` (health, server info, downloads, the page, the docs): fewer routes to
    // register at every start.
    exposeHeadRoutes: false,
  });
}

/**
 * An `onRequest` hook that answers 401 `{"detail":"Unauthorized"}` unless the request carries a
 * valid session key (CORS preflights pass). Added inside the authenticated route group only.
 */
export function requireSessionKey(context: ServerContext) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!context.auth.required || request.method === 'OPTIONS') return;
    if (!context.auth.check(request.headers[SESSION_KEY_HEADER_NAME])) {
      await reply.status(401).send(httpErrorBody('Unauthorized'));
    }
  };
}

/**
 * Registers every plugin and route of the agent-server on `app` (from
 * {@link createAgentServerApp}); the caller listens. The `/api` routes and `/execute_action`
 * form one encapsulated group whose `onRequest` hook requires the session key; health, server
 * info, docs and the websockets (first-frame auth) are registered outside it, as in OpenHands.
 */
export async function buildApp(app: HttpApp, context: ServerContext): Promise<void> {
  const { options } = context;

  const dockerHostAddr = process.env.DOCKER_HOST_ADDR;
  await app.register(cors, {
    credentials: true,
    exposedHeaders: [GIT_CHANGES_TRUNCATED_HEADER],
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    origin: (origin, callback) => {
      callback(
        null,
        origin === undefined || isAllowedOrigin(origin, options.allowCorsOrigins, dockerHostAddr),
      );
    },
  });
  await app.register(websocket, { options: { maxPayload: MAX_FRAME_BYTES } });
  // Every route added from here on is documented; the document is built on its first request,
  // with the wire models' components (their module builds every schema of protocol).
  const openApi = recordLazyOpenApi(app, async () => {
    const { wireSchemaComponents } = await import('./wire-schema-components.js');
    return {
      openapi: {
        info: { title: 'agent-workspace agent-server', version: VERSION },
        components: {
          securitySchemes: {
            sessionApiKey: { type: 'apiKey', in: 'header', name: SESSION_API_KEY_HEADER },
            // `POST /api/init` alone, which a dormant server checks against its start-up keys.
            [INIT_API_KEY_SECURITY_SCHEME]: {
              type: 'apiKey',
              in: 'header',
              name: INIT_API_KEY_HEADER,
            },
          },
          schemas: wireSchemaComponents(),
        },
        // Open routes (health, server info) override this with `security: []`, `POST /api/init`
        // with its own scheme.
        security: [{ sessionApiKey: [] }],
      },
      transform: jsonSchemaTransform,
    };
  });
  // Built on the first /docs request: nothing of swagger-ui runs before the server listens.
  registerLazySwaggerUi(app, {
    routePrefix: '/docs',
    document: () => openApi.document(),
    baseDir: swaggerUiBaseDir(),
  });

  const bodyLimits = {
    idleMs: options.bodyIdleTimeoutSeconds * 1000,
    minBytesPerSecond: options.minBodyBytesPerSecond,
  };
  app.addHook('onRequest', async (request, reply) => {
    watchRequestBody(request, reply, bodyLimits);
  });
  app.get('/openapi.json', { schema: { hide: true } }, () => openApi.document());
  const uiRoot = options.ui ? uiDistDir() : undefined;
  if (options.ui && !uiRoot) {
    app.log.warn('@agent-workspace/ui is not built: / answers the server info instead of the page');
  }
  if (uiRoot) registerUiRoutes(app, uiRoot);
  await app.register(async (open) => {
    registerServerDetailsRoutes(open, context, { rootIsUi: uiRoot !== undefined });
    registerInitRoutes(open, context);
    await open.register(async (sockets) => {
      sockets.addHook('onRequest', requireInitialized(context));
      registerBashEventsSocket(sockets, context);
      registerEventsSocket(sockets, context);
      if (options.extensions) registerExecSocket(sockets, context);
      if (options.extensions) registerFileWatchSocket(sockets, context);
    });
    await open.register(async (api) => {
      api.addHook('onRequest', requireSessionKey(context));
      api.addHook('onRequest', requireInitialized(context));
      registerToolRoutes(api);
      registerBashRoutes(api, context);
      // Files, git and conversations: made on their first request.
      for (const group of lazyRouteGroups(context)) {
        await registerLazyRouteGroup(api, group, {
          bodyLimit: MAX_JSON_BODY_BYTES,
          bodyLimits,
          openApi,
        });
      }
      registerActionRoutes(api, context);
      registerPluginRoutes(api, context);
      if (options.extensions) {
        registerWorkspaceIdentityRoutes(api, context);
        registerArchiveRoutes(api, context);
        registerDirectoryListingRoutes(api, context);
        registerWorkspaceMetricsRoutes(api, context);
        await registerPortProxyRoutes(api);
      }
    });
    // Unknown paths under `/api` ask for the key too: without it, no route's existence is told.
    await open.register(
      async (misses) => {
        misses.addHook('onRequest', requireSessionKey(context));
        misses.setNotFoundHandler((_request, reply) =>
          reply.status(404).send(httpErrorBody('Not Found')),
        );
      },
      { prefix: '/api' },
    );
  });
}
