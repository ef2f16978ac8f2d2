import type { FastifyInstance } from 'fastify';
import { ServerWorkspace } from '../actions/server-workspace.js';
import type { ServerContext } from '../app/server-context.js';
import { ConversationService } from './conversation-service.js';

const services = new WeakMap<ServerContext, ConversationService>();

/**
 * The one {@link ConversationService} of a server, shared by the conversation routes and the
 * events socket; made on first call, closed when `app` closes. Each conversation acts through a
 * `ServerWorkspace` rooted at its `working_dir`.
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
      // The server's own workspace: its tools are confined, sandboxed, scrubbed, bounded and
      // journaled as every other path of the server.
      workspace: ({ workingDir }) => new ServerWorkspace(context, { workingDir }),
      history: {
        maxEventBytes: context.options.conversationMaxEventBytes,
        maxMemoryBytes: context.options.conversationMaxMemoryBytes,
        maxDiskBytes: context.options.conversationMaxDiskBytes,
      },
      maxLoadedConversations: context.options.maxLoadedConversations,
    });
    service = created;
    services.set(context, created);
    app.addHook('onClose', async () => {
      await created.close();
    });
  }
  return service;
}
