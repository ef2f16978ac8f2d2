import cors from '@fastify/cors';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance, type FastifyRequest, LogController } from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import { registerBashRoutes } from '../routes/bash-routes.js';
import { registerFileRoutes } from '../routes/file-routes.js';
import { registerGitRoutes } from '../routes/git-routes.js';
import { registerServerDetailsRoutes } from '../routes/server-details-routes.js';
import { registerBashEventsSocket } from '../sockets/bash-events-socket.js';
import { registerExecSocket } from '../sockets/exec-socket.js';
import { VERSION } from '../version.js';
import { errorHandler } from './error-handler.js';
import { isAllowedOrigin } from './is-allowed-origin.js';
import type { ServerContext } from './server-context.js';
import { SESSION_API_KEY_HEADER } from './session-auth.js';
import { swaggerUiBaseDir } from './swagger-ui-base-dir.js';
import { zodValidatorCompiler } from './zod-validator-compiler.js';

/**
 * True for requests that need a session key: `/api/*`, judged by the raw URL and by the route
 * matched (which sees through percent-encoding such as `/%61pi/...`). Health, docs and
 * websockets (first-frame auth) stay open, as in OpenHands.
 */
function isApiRequest(request: FastifyRequest): boolean {
  return request.url.startsWith('/api/') || !!request.routeOptions.url?.startsWith('/api/');
}

/** Builds the Fastify app with every plugin and route; the caller listens. */
export async function buildApp(context: ServerContext): Promise<FastifyInstance> {
  const { options } = context;
  const app = Fastify({
    logger: { level: options.logLevel },
    logController: new LogController({
      disableRequestLogging: options.logLevel !== 'debug' && options.logLevel !== 'trace',
    }),
    bodyLimit: 10 * 1024 * 1024,
    forceCloseConnections: true,
    return503OnClosing: true,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((_request, reply) => reply.status(404).send({ detail: 'Not Found' }));

  const dockerHostAddr = process.env.DOCKER_HOST_ADDR;
  await app.register(cors, {
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    origin: (origin, callback) => {
      callback(
        null,
        origin === undefined || isAllowedOrigin(origin, options.allowCorsOrigins, dockerHostAddr),
      );
    },
  });
  await app.register(websocket, { options: { maxPayload: 16 * 1024 * 1024 } });
  await app.register(multipart, { limits: { fileSize: options.maxUploadBytes } });
  await app.register(swagger, {
    openapi: {
      info: { title: 'agent-workspace agent-server', version: VERSION },
      components: {
        securitySchemes: {
          sessionApiKey: { type: 'apiKey', in: 'header', name: 'X-Session-API-Key' },
        },
      },
      // Open routes (health, server info) override this with `security: []`.
      security: [{ sessionApiKey: [] }],
    },
    transform: jsonSchemaTransform,
  });
  const baseDir = swaggerUiBaseDir();
  await app.register(swaggerUi, { routePrefix: '/docs', ...(baseDir ? { baseDir } : {}) });

  app.addHook('onRequest', async (request, reply) => {
    if (!context.authRequired || request.method === 'OPTIONS' || !isApiRequest(request)) return;
    if (!context.checkSessionKey(request.headers[SESSION_API_KEY_HEADER])) {
      return reply.status(401).send({ detail: 'Unauthorized' });
    }
  });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(async (scope) => {
    registerServerDetailsRoutes(scope, context);
    registerBashRoutes(scope, context);
    registerFileRoutes(scope, context);
    registerGitRoutes(scope, context);
    registerBashEventsSocket(scope, context);
    if (options.extensions) registerExecSocket(scope, context);
  });
  return app;
}
