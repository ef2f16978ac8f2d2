import {
  AGENT_SERVER_ROUTES,
  GIT_CHANGES_TRUNCATED_HEADER,
  httpErrorBody,
  SESSION_API_KEY_HEADER,
} from '@agent-workspace/protocol';
import cors from '@fastify/cors';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { registerActionRoutes } from '../routes/action-routes.js';
import { registerArchiveRoutes } from '../routes/archive-routes.js';
import { registerBashRoutes } from '../routes/bash-routes.js';
import { registerConversationEventRoutes } from '../routes/conversation-event-routes.js';
import { registerConversationRoutes } from '../routes/conversation-routes.js';
import { registerFileRoutes } from '../routes/file-routes.js';
import { registerGitRoutes } from '../routes/git-routes.js';
import { registerPluginRoutes } from '../routes/plugin-routes.js';
import { registerServerDetailsRoutes } from '../routes/server-details-routes.js';
import { registerWorkspaceIdentityRoutes } from '../routes/workspace-identity-routes.js';
import { registerBashEventsSocket } from '../sockets/bash-events-socket.js';
import { registerEventsSocket } from '../sockets/events-socket.js';
import { registerExecSocket } from '../sockets/exec-socket.js';
import { VERSION } from '../version.js';
import { createHttpApp } from './create-http-app.js';
import { isAllowedOrigin } from './is-allowed-origin.js';
import type { ServerContext } from './server-context.js';
import { SESSION_KEY_HEADER_NAME } from './session-auth.js';
import { swaggerUiBaseDir } from './swagger-ui-base-dir.js';
import { watchRequestBody } from './watch-request-body.js';
import { type SchemaComponents, wireSchemaComponents } from './wire-schema-components.js';

/**
 * True for requests that need a session key: `/api/*` and `/execute_action`, judged by the raw
 * URL and by the route matched (which sees through percent-encoding such as `/%61pi/...`).
 * Health, docs and websockets (first-frame auth) stay open, as in OpenHands.
 */
function isApiRequest(request: FastifyRequest): boolean {
  const route = request.routeOptions.url;
  return (
    request.url.startsWith('/api/') ||
    !!route?.startsWith('/api/') ||
    route === AGENT_SERVER_ROUTES.executeAction
  );
}

/** Largest JSON request body: a command (128 KiB) and its environment (256 KiB) fit easily. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/** Largest websocket frame a client may send (stdin data, commands). */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** Most parts (files and fields) one multipart body may hold. */
const MAX_MULTIPART_PARTS = 100;

/** Builds the Fastify app with every plugin and route; the caller listens. */
export async function buildApp(context: ServerContext): Promise<FastifyInstance> {
  const { options } = context;
  const app = createHttpApp({
    logLevel: options.logLevel,
    bodyLimit: MAX_JSON_BODY_BYTES,
    requestTimeoutMs: options.requestTimeoutSeconds * 1000,
    maxConnections: options.maxConnections,
  });

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
  await app.register(multipart, {
    limits: {
      fileSize: options.maxUploadBytes,
      parts: MAX_MULTIPART_PARTS,
      fields: MAX_MULTIPART_PARTS,
      fieldSize: 64 * 1024,
      headerPairs: 100,
    },
  });
  let schemaComponents: SchemaComponents | undefined;
  await app.register(swagger, {
    openapi: {
      info: { title: 'agent-workspace agent-server', version: VERSION },
      components: {
        securitySchemes: {
          sessionApiKey: { type: 'apiKey', in: 'header', name: SESSION_API_KEY_HEADER },
        },
        // Converted on the first /openapi.json or /docs request, not on the start-up path.
        get schemas() {
          schemaComponents ??= wireSchemaComponents();
          return schemaComponents;
        },
      },
      // Open routes (health, server info) override this with `security: []`.
      security: [{ sessionApiKey: [] }],
    },
    transform: jsonSchemaTransform,
  });
  const baseDir = swaggerUiBaseDir();
  await app.register(swaggerUi, { routePrefix: '/docs', ...(baseDir ? { baseDir } : {}) });

  const bodyLimits = {
    idleMs: options.bodyIdleTimeoutSeconds * 1000,
    minBytesPerSecond: options.minBodyBytesPerSecond,
  };
  app.addHook('onRequest', async (request, reply) => {
    watchRequestBody(request, reply, bodyLimits);
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!context.authRequired || request.method === 'OPTIONS' || !isApiRequest(request)) return;
    if (!context.checkSessionKey(request.headers[SESSION_KEY_HEADER_NAME])) {
      return reply.status(401).send(httpErrorBody('Unauthorized'));
    }
  });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(async (scope) => {
    registerServerDetailsRoutes(scope, context);
    registerBashRoutes(scope, context);
    registerFileRoutes(scope, context);
    registerGitRoutes(scope, context);
    registerConversationRoutes(scope, context);
    registerConversationEventRoutes(scope, context);
    registerActionRoutes(scope, context);
    registerPluginRoutes(scope, context);
    registerBashEventsSocket(scope, context);
    registerEventsSocket(scope, context);
    if (options.extensions) {
      registerWorkspaceIdentityRoutes(scope, context);
      registerArchiveRoutes(scope, context);
      registerExecSocket(scope, context);
    }
  });
  return app;
}
