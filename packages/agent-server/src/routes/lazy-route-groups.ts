import { AGENT_SERVER_ROUTE_PREFIXES } from '@agent-workspace/protocol/constants';
import type { LazyRouteGroup } from '../app/lazy-route-group.js';
import type { ServerContext } from '../app/server-context.js';

/** Most parts (files and fields) one multipart body may hold. */
const MAX_MULTIPART_PARTS = 100;

/**
 * The route groups a first command does not need, each served from an app made on its first
 * request (see `registerLazyRouteGroup`), one per `AGENT_SERVER_ROUTE_PREFIXES` entry: files
 * (uploads with the multipart plugin, downloads, the file browser, workspace archives), git and
 * conversations.
 */
export function lazyRouteGroups(context: ServerContext): LazyRouteGroup[] {
  const { options } = context;
  return [
    {
      prefix: AGENT_SERVER_ROUTE_PREFIXES.file,
      methods: ['GET', 'HEAD', 'POST'],
      register: async (app) => {
        const [multipart, files, browser, archive] = await Promise.all([
          import('@fastify/multipart'),
          import('./file-routes.js'),
          import('./file-browser-routes.js'),
          import('./workspace-archive-routes.js'),
        ]);
        await app.register(multipart.default, {
          limits: {
            fileSize: options.maxUploadBytes,
            parts: MAX_MULTIPART_PARTS,
            fields: MAX_MULTIPART_PARTS,
            fieldSize: 64 * 1024,
            headerPairs: 100,
          },
        });
        files.registerFileRoutes(app, context);
        browser.registerFileBrowserRoutes(app, context);
        archive.registerWorkspaceArchiveRoutes(app, context);
      },
    },
    {
      prefix: AGENT_SERVER_ROUTE_PREFIXES.git,
      methods: ['GET'],
      register: async (app) => {
        const { registerGitRoutes } = await import('./git-routes.js');
        registerGitRoutes(app, context);
      },
    },
    {
      prefix: AGENT_SERVER_ROUTE_PREFIXES.conversations,
      methods: ['DELETE', 'GET', 'PATCH', 'POST'],
      register: async (app) => {
        const [conversations, events, control, confirmation, secrets, llm] = await Promise.all([
          import('./conversation-routes.js'),
          import('./conversation-event-routes.js'),
          import('./conversation-control-routes.js'),
          import('./conversation-confirmation-routes.js'),
          import('./conversation-secret-routes.js'),
          import('./conversation-llm-routes.js'),
        ]);
        conversations.registerConversationRoutes(app, context);
        events.registerConversationEventRoutes(app, context);
        control.registerConversationControlRoutes(app, context);
        confirmation.registerConversationConfirmationRoutes(app, context);
        secrets.registerConversationSecretRoutes(app, context);
        llm.registerConversationLLMRoutes(app, context);
      },
    },
  ];
}
