import { httpErrorBody } from '@agent-workspace/protocol';
import Fastify, {
  type FastifyInstance,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { defaultMaxConnections, readOpenFilesLimit } from './default-max-connections.js';
import { errorHandler } from './error-handler.js';
import { registerJsonBodyParser } from './parse-json-body.js';
import { clientErrorHandler, frameworkErrors } from './protocol-errors.js';
import { redactRequestUrl } from './redact-request-url.js';
import {
  isDescriptorExhaustion,
  shedIdleConnections,
  trackConnections,
} from './shed-idle-connections.js';
import { zodValidatorCompiler } from './zod-validator-compiler.js';

/** Longest the request line and headers may take to arrive. */
const HEADERS_TIMEOUT_MS = 30_000;

/** Options of {@link createHttpApp}. */
export interface CreateHttpAppOptions {
  /** pino level; requests are logged at `debug` and `trace` only. */
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Largest JSON body, in bytes. */
  bodyLimit: number;
  /** Longest a whole request (headers and body) may take to arrive, in milliseconds. */
  requestTimeoutMs: number;
  /**
   * Most open client connections; one more sheds the oldest idle one (or is closed when all are
   * busy). Default `defaultMaxConnections(readOpenFilesLimit())`, derived from the open-files limit.
   */
  maxConnections?: number | undefined;
  /**
   * Whether every `GET` route answers `HEAD` too; when not, only the routes that set
   * `exposeHeadRoute` do (each `HEAD` route is one more to register at start-up).
   * @default true
   */
  exposeHeadRoutes?: boolean | undefined;
}

/**
 * zod validates and serializes every route. Given as Fastify's compiler factories, they are its
 * only compilers: Fastify does not load its own (ajv, fast-json-stringify and their modules).
 * Fastify's types name ajv's factory, though it accepts any that returns a compiler.
 */
const ZOD_COMPILERS = {
  buildValidator: () => zodValidatorCompiler,
  buildSerializer: () => serializerCompiler,
} as unknown as NonNullable<FastifyServerOptions['schemaController']>['compilersFactory'];

/** A Fastify app whose routes are typed by zod schemas. */
export type HttpApp = ReturnType<typeof createHttpApp>;

/**
 * The HTTP base every agent-workspace server shares (the agent-server and the Runtime API
 * server): JSON logs without secrets in URLs, a strict JSON body parser, zod validation with
 * FastAPI-style 422 issues, every failure in the `{"detail": ...}` envelope (unparsable
 * requests, unknown routes, a missing `Host`), bounded headers, bodies, time and connections.
 * Idle connections are shed past the connection cap and when the process runs out of
 * descriptors (see `trackConnections`; a failed request's `EMFILE`/`ENFILE` counts too).
 */
export function createHttpApp(options: CreateHttpAppOptions) {
  const app = Fastify({
    logger: {
      level: options.logLevel,
      // Fastify's request fields, with secret query parameters hidden.
      serializers: {
        req: (request: FastifyRequest) => ({
          method: request.method,
          url: redactRequestUrl(request.url),
          host: request.host,
          remoteAddress: request.ip,
          remotePort: request.socket?.remotePort,
        }),
      },
    },
    logController: new LogController({
      disableRequestLogging: options.logLevel !== 'debug' && options.logLevel !== 'trace',
    }),
    bodyLimit: options.bodyLimit,
    requestTimeout: options.requestTimeoutMs,
    exposeHeadRoutes: options.exposeHeadRoutes ?? true,
    forceCloseConnections: true,
    return503OnClosing: true,
    // A missing Host is answered below, in the error envelope.
    http: { requireHostHeader: false },
    clientErrorHandler,
    frameworkErrors,
    schemaController: { compilersFactory: ZOD_COMPILERS },
  }).withTypeProvider<ZodTypeProvider>();
  answerLikeEveryServer(app as unknown as FastifyInstance);
  const connectionsLog = app.log.child({ component: 'connections' });
  trackConnections({
    server: app.server,
    maxConnections: options.maxConnections ?? defaultMaxConnections(readOpenFilesLimit()),
    onShed: (count, reason) =>
      reason === 'descriptors'
        ? connectionsLog.warn({ count }, `out of descriptors: shed ${count} idle connections`)
        : connectionsLog.debug({ count }, 'at the connection cap: shed the oldest idle one'),
    onAcceptError: (error) =>
      connectionsLog.warn({ code: error.code }, `accept failed: ${error.code ?? error.message}`),
  });
  app.server.headersTimeout = Math.min(HEADERS_TIMEOUT_MS, options.requestTimeoutMs);
  app.addHook('onRequest', async (request, reply) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      return reply
        .code(400)
        .header('connection', 'close')
        .send(httpErrorBody('Missing Host header'));
    }
  });
  return app;
}

/** Options of {@link createHandedRequestApp}. */
export interface CreateHandedRequestAppOptions {
  /** The app from {@link createHttpApp} that hands it requests; its logger logs for both. */
  owner: FastifyInstance;
  /** Largest JSON body, in bytes (the owner's). */
  bodyLimit: number;
}

/**
 * An app for requests that an app from {@link createHttpApp} hands on as they came (see
 * `handToLazyApp`): the same strict JSON body parser, zod validation and serialization, error
 * envelope and not-found answer, and the owner's logger. It has no server of its own: the
 * owner's connection limits and timeouts apply, and its hooks ran first.
 */
export function createHandedRequestApp({ owner, bodyLimit }: CreateHandedRequestAppOptions) {
  const app = Fastify({
    loggerInstance: owner.log,
    // The owner logs the request.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit,
    exposeHeadRoutes: false,
    frameworkErrors,
    schemaController: { compilersFactory: ZOD_COMPILERS },
  }).withTypeProvider<ZodTypeProvider>();
  answerLikeEveryServer(app as unknown as FastifyInstance);
  return app;
}

/**
 * What every app of ours answers with: the strict JSON body parser, the `{"detail": ...}` error
 * envelope and 404, and idle connections shed when a request fails for lack of descriptors.
 */
function answerLikeEveryServer(app: FastifyInstance): void {
  registerJsonBodyParser(app);
  app.setErrorHandler(errorHandler);
  app.addHook('onError', async (_request, _reply, error) => {
    if (isDescriptorExhaustion(error)) shedIdleConnections();
  });
  app.setNotFoundHandler((_request, reply) => reply.status(404).send(httpErrorBody('Not Found')));
}
