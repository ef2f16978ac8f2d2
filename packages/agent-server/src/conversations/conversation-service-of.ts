import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../app/server-context.js';
import { ConversationService } from './conversation-service.js';

const services = new WeakMap<ServerContext, ConversationService>();

/**
 * The one {@link ConversationService} of a server, shared by the conversation routes and the
 * events socket; made on first call, closed when `app` closes.
 */
export function conversationServiceOf(
  context: ServerContext,
  app: FastifyInstance,
): ConversationService {
  let service = services.get(context);
  if (!service) {
    const created = new ConversationService({
      paths: context.paths,
      stateDir: context.options.stateDir,
      log: app.log,
      actions: () => context.plugins ?? null,
    });
    service = created;
    services.set(context, created);
    app.addHook('onClose', async () => {
      await created.close();
    });
  }
  return service;
}
