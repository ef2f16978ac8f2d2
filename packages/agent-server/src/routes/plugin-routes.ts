import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../app/http-error.js';
import type { ServerContext } from '../app/server-context.js';

/** Where plugin routes are mounted: `/api/plugins/<plugin>/<path>`. */
export const PLUGIN_ROUTE_PREFIX = '/api/plugins';

/**
 * Mounts the routes runtime plugins add (`RuntimePlugin.routes`) under
 * `/api/plugins/<plugin>/<path>`, looked up at request time since plugins start after the app.
 * 404 for no such route; 503 with `Retry-After` while its plugin starts, 409 once it failed;
 * input that fails the route's schema is 422 naming the field.
 */
export function registerPluginRoutes(app: FastifyInstance, context: ServerContext): void {
  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const { plugin, '*': rest } = request.params as { plugin: string; '*': string };
    const host = context.plugins;
    const found = host
      ?.routes()
      .find(
        (entry) =>
          entry.plugin === plugin &&
          entry.route.path === `/${rest}` &&
          entry.route.method === request.method,
      );
    if (!host || !found)
      throw new HttpError(404, `No plugin route ${request.method} ${request.url}`);
    const status = (await host.status()).find((entry) => entry.name === plugin);
    if (status?.state === 'starting') {
      reply.header('retry-after', '1');
      throw new HttpError(503, `The ${plugin} plugin is still starting`);
    }
    if (status?.state !== 'ready') {
      throw new HttpError(409, `The ${plugin} plugin is ${status?.state}: ${status?.error ?? ''}`);
    }
    const input = found.route.input.safeParse(
      request.method === 'GET' ? request.query : request.body,
    );
    if (!input.success) {
      const issue = input.error.issues[0];
      throw new HttpError(422, [
        {
          type: 'value_error',
          loc: [request.method === 'GET' ? 'query' : 'body', ...(issue?.path ?? []).map(String)],
          msg: issue?.message ?? 'Invalid input',
          input: null,
        },
      ]);
    }
    context.touch();
    return found.route.handle(input.data, context.shutdownSignal);
  };
  const url = `${PLUGIN_ROUTE_PREFIX}/:plugin/*`;
  app.get(url, { schema: { hide: true } }, handle);
  app.post(url, { schema: { hide: true } }, handle);
}
