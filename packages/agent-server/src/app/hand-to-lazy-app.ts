import { httpErrorBody } from '@agent-workspace/protocol';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { hijackKeepingHeaders } from './hijack-keeping-headers.js';

/**
 * A bare app for {@link handToLazyApp} to build on: no logger of its own, and a path it does not
 * route answers 404 in the owner's `{"detail": "Not Found"}` envelope.
 */
export function createLazyApp(): FastifyInstance {
  const app = Fastify({ logger: false });
  app.setNotFoundHandler((_request, reply) => reply.status(404).send(httpErrorBody('Not Found')));
  return app;
}

/** Options of {@link handToLazyApp}. */
export interface HandToLazyAppOptions {
  /** The app whose routes use the handler: closing it closes the lazy app too. */
  owner: FastifyInstance;
  /** Builds the lazy app (ready to route); called on the first request, again after a failure. */
  build: () => Promise<FastifyInstance>;
}

/**
 * A route handler that hands every request, as it came (body unread), to a Fastify app built on
 * the first request rather than at start-up: for routes whose plugins cost start-up time every
 * sandbox pays (Swagger UI, the web page, the port proxy's HTTP client). The owner's hooks ran
 * first (session key, CORS), and the headers they set go out with the lazy app's answer.
 */
export function handToLazyApp({
  owner,
  build,
}: HandToLazyAppOptions): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  let lazy: Promise<FastifyInstance> | undefined;
  owner.addHook('onClose', async () => {
    await (await lazy?.catch(() => undefined))?.close();
  });
  return async (request, reply) => {
    lazy ??= build().catch((error: unknown) => {
      lazy = undefined;
      throw error;
    });
    const app = await lazy;
    app.routing(request.raw, hijackKeepingHeaders(reply));
  };
}

/**
 * Leaves request bodies unread in `scope`, for routes that hand requests on with
 * {@link handToLazyApp}: the app they go to reads them.
 */
export function passBodiesThrough(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
}
