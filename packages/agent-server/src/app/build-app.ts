import cors from '@fastify/cors';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
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
import type { ServerContext } from './server-context.js';
import { SESSION_API_KEY_HEADER } from './session-auth.js';
import { zodValidatorCompiler } from './zod-validator-compiler.js';

/** Routes that never need a session key (health, docs), as OpenHands exempts them. */
function isOpenRoute(url: string): boolean {
  return !url.startsWith('/api/');
}

/** Origins always allowed by CORS, as the OpenHands server does. */
const LOCAL_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

/** Builds the Fastify app with every plugin and route; the caller listens. */
export async function buildApp(context: ServerContext): Promise<FastifyInstance> {
  const { options } = context;
  const app = Fastify({
    logger: { level: options.logLevel },
    bodyLimit: 10 * 1024 * 1024,
    disableRequestLogging: options.logLevel !== 'debug' && options.logLevel !== 'trace',
    forceCloseConnections: true,
    return503OnClosing: true,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((_request, reply) => reply.status(404).send({ detail: 'Not Found' }));

  await app.register(cors, {
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    origin: (origin, callback) => {
      callback(
        null,
        origin === undefined ||
          LOCAL_ORIGIN.test(origin) ||
          options.allowCorsOrigins.includes(origin),
      );
    },
  });
  await app.register(websocket, { options: { maxPayload: 16 * 1024 * 1024 } });
  await app.register(multipart, { limits: { fileSize: options.maxUploadBytes, files: 1 } });
  await app.register(swagger, {
    openapi: {
      info: { title: 'agent-workspace agent-server', version: VERSION },
      components: {
        securitySchemes: {
          sessionApiKey: { type: 'apiKey', in: 'header', name: 'X-Session-API-Key' },
        },
      },
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  app.addHook('onRequest', async (request, reply) => {
    if (!context.authRequired || request.method === 'OPTIONS' || isOpenRoute(request.url)) return;
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
