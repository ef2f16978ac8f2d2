import {
  AGENT_SERVER_ROUTES,
  INIT_API_KEY_HEADER,
  initRequestWireSchema,
  initStatusWireSchema,
} from '@agent-workspace/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { HttpError } from '../app/http-error.js';
import type { ServerContext } from '../app/server-context.js';
import { SESSION_KEY_HEADER_NAME } from '../app/session-auth.js';

/** The OpenAPI security scheme of `POST /api/init`: its key in the `X-Init-API-Key` header. */
export const INIT_API_KEY_SECURITY_SCHEME = 'initApiKey';

/** OpenHands' answer to `/api/init` on a server not started with deferred init. */
const NOT_DEFERRED =
  'server is not running with deferred_init=True; the /api/init endpoint is not available';

/**
 * Registers OpenHands' deferred-init routes, outside the session-key group:
 * `GET /api/init` (open) tells the state; `POST /api/init` configures a dormant server once
 * (400 after). Its key is the `X-Init-API-Key` header, checked against the session keys the
 * server started with (OpenHands checks its `secret_key`, which defaults to the first session
 * key); with none configured it is open. On a server started without `deferInit` both answer
 * 404, after asking for the session key (401) as unknown `/api` paths do.
 */
export function registerInitRoutes(app: FastifyInstance, context: ServerContext): void {
  const startupAuth = context.auth;
  const initKeyHeader = INIT_API_KEY_HEADER.toLowerCase();
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['Init'];
  // Disabled, the routes are like unknown `/api` paths: the session key first (401), then 404.
  const requireDeferred = (request: FastifyRequest) => {
    if (context.init !== undefined) return context.init;
    if (startupAuth.required && !startupAuth.check(request.headers[SESSION_KEY_HEADER_NAME])) {
      throw new HttpError(401, 'Unauthorized');
    }
    throw new HttpError(404, NOT_DEFERRED);
  };

  typed.get(
    AGENT_SERVER_ROUTES.init,
    { schema: { tags, security: [], response: { 200: initStatusWireSchema } } },
    async (request) => requireDeferred(request).status(),
  );
  typed.post(
    AGENT_SERVER_ROUTES.init,
    {
      // Auth before the body is read or validated: no 422 tells a stranger the body's shape.
      onRequest: async (request) => {
        requireDeferred(request);
        if (startupAuth.required && !startupAuth.check(request.headers[initKeyHeader])) {
          throw new HttpError(401, 'Unauthorized');
        }
      },
      schema: {
        tags,
        security: [{ [INIT_API_KEY_SECURITY_SCHEME]: [] }],
        body: initRequestWireSchema,
        response: { 200: initStatusWireSchema },
      },
    },
    async (request) => requireDeferred(request).initialize(context, request.body),
  );
}
