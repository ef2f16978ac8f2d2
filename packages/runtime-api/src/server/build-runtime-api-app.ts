import {
  createHttpApp,
  createSessionKeyChecker,
  wireSchemaComponents,
} from '@agent-workspace/agent-server/http';
import {
  httpErrorBody,
  RUNTIME_API_KEY_HEADER,
  RUNTIME_API_ROUTES,
  runtimeApiWireSchemas,
} from '@agent-workspace/protocol';
import swagger from '@fastify/swagger';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import packageJson from '../../package.json' with { type: 'json' };
import { registerRuntimeApiRoutes, SESSION_ROUTE_URL } from './register-runtime-api-routes.js';
import { registerSnapshotRoutes } from './register-snapshot-routes.js';
import type { RuntimeApiContext } from './runtime-api-context.js';

/**
 * Largest JSON body, in bytes: a `/start` body's environment alone may hold 256 KiB of
 * variables (more after JSON escaping); anything larger gets 413.
 */
export const MAX_RUNTIME_API_BODY_BYTES = 1024 * 1024;

/** How often lapsed request deadlines are enforced (Node checks every 30 s by default). */
const CONNECTIONS_CHECK_INTERVAL_MS = 1000;

/** Path of the OpenAPI document (behind the key, like every route but `/health`). */
export const OPENAPI_PATH = '/openapi.json';

/** The Runtime API key header as Node presents it (lower case). */
const API_KEY_HEADER_NAME = RUNTIME_API_KEY_HEADER.toLowerCase();

/** True for the one open route: `GET /health` (and its `HEAD`). */
function isOpenRoute(request: FastifyRequest): boolean {
  return (
    (request.method === 'GET' || request.method === 'HEAD') &&
    request.routeOptions.url === RUNTIME_API_ROUTES.health
  );
}

/**
 * Builds the Runtime API app on the agent-server's HTTP base (limits, error envelope, 422s
 * naming fields): an `X-API-Key` check before anything else on every request but
 * `GET /health` (unknown paths included, so nothing is learnt without a key), the routes, and
 * `GET /openapi.json` generated from the zod schemas with every Runtime API wire model as a
 * component. Answers the app and the context its routes share (with the app's logger); the
 * caller listens.
 */
export async function buildRuntimeApiApp(
  parts: Omit<RuntimeApiContext, 'log'>,
): Promise<{ app: FastifyInstance; context: RuntimeApiContext }> {
  const { options } = parts;
  const app = createHttpApp({
    logLevel: options.logLevel,
    bodyLimit: MAX_RUNTIME_API_BODY_BYTES,
    requestTimeoutMs: options.requestTimeoutSeconds * 1000,
    maxConnections: options.maxConnections,
  });
  // Read when the server starts listening; makes the request deadline hold to the second.
  Object.assign(app.server, { connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS });

  const context: RuntimeApiContext = { ...parts, log: app.log };
  const checkApiKey = createSessionKeyChecker(options.apiKeys);
  app.addHook('onRequest', async (request, reply) => {
    if (isOpenRoute(request)) return;
    if (!checkApiKey(request.headers[API_KEY_HEADER_NAME])) {
      return reply.status(401).send(httpErrorBody('Unauthorized'));
    }
  });

  const components = wireSchemaComponents(runtimeApiWireSchemas);
  await app.register(swagger, {
    openapi: {
      info: { title: 'agent-workspace Runtime API', version: packageJson.version },
      components: {
        securitySchemes: {
          runtimeApiKey: { type: 'apiKey', in: 'header', name: RUNTIME_API_KEY_HEADER },
        },
        schemas: components,
      },
      // `/health` overrides this with `security: []`.
      security: [{ runtimeApiKey: [] }],
    },
    transform: (input) => {
      const transformed = jsonSchemaTransform(input);
      return input.url === SESSION_ROUTE_URL
        ? { ...transformed, url: RUNTIME_API_ROUTES.session }
        : transformed;
    },
  });
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
  await app.register(async (scope) => registerRuntimeApiRoutes(scope, context));
  await app.register(async (scope) => registerSnapshotRoutes(scope, context));
  return { app: app as unknown as FastifyInstance, context };
}
