import {
  AGENT_SERVER_ROUTES,
  DIRECTORY_ARCHIVE_CAPABILITY,
  DIRECTORY_LISTING_CAPABILITY,
  EXEC_STREAM_CAPABILITY,
  EXECUTE_ACTION_CAPABILITY,
  FILE_WATCH_CAPABILITY,
  HEALTH_OK,
  healthStatusSchema,
  PORT_PROXY_CAPABILITY,
  READY,
  readyStatusSchema,
  type ServerInfoWire,
  serverInfoWireSchema,
  TOOL_NAMES,
  WORKSPACE_IDENTITY_CAPABILITY,
  WORKSPACE_METRICS_CAPABILITY,
} from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import { describeTrustBoundary } from '../app/describe-trust-boundary.js';
import type { ServerContext } from '../app/server-context.js';
import { VERSION } from '../version.js';

/** Capability announced when file and git paths are confined to the working directory. */
export const CONFINE_TO_WORKING_DIR_CAPABILITY = 'agent_workspace.confine_to_working_dir_v1';

/** Capability announced when commands and git run in a sandbox of the working directory. */
export const COMMAND_SANDBOX_CAPABILITY = 'agent_workspace.command_sandbox_v1';

/**
 * Registers the open server-details routes of OpenHands: `GET /alive`, `/health`, `/ready`,
 * `/server_info`, and `/` too (the same `ServerInfo`) unless `rootIsUi` (the web page is there). The build sha and ref come from
 * `AGENT_SERVER_BUILD_GIT_SHA` / `_REF` (or OpenHands' `OPENHANDS_BUILD_GIT_SHA` / `_REF`);
 * `usable_tools` are the tools `GET /api/tools/` lists; `capabilities` lists our extensions
 * only when `options.extensions` is on, the ready runtime plugins' among them; `plugins` lists
 * every plugin with its state, `resources` the memory of the server and of the process trees it
 * watches, and `trust_boundary` what confines paths, code execution and network (saying plainly
 * when code execution is not confined).
 */
export function registerServerDetailsRoutes(
  app: FastifyInstance,
  context: ServerContext,
  routeOptions: { readonly rootIsUi: boolean },
): void {
  const env = process.env;
  const buildGitSha = env.AGENT_SERVER_BUILD_GIT_SHA ?? env.OPENHANDS_BUILD_GIT_SHA ?? 'unknown';
  const buildGitRef = env.AGENT_SERVER_BUILD_GIT_REF ?? env.OPENHANDS_BUILD_GIT_REF ?? 'unknown';
  const { extensions, confineToWorkingDir, sandbox } = context.options;
  const fixedCapabilities = extensions
    ? [
        EXEC_STREAM_CAPABILITY,
        WORKSPACE_IDENTITY_CAPABILITY,
        EXECUTE_ACTION_CAPABILITY,
        DIRECTORY_ARCHIVE_CAPABILITY,
        DIRECTORY_LISTING_CAPABILITY,
        FILE_WATCH_CAPABILITY,
        WORKSPACE_METRICS_CAPABILITY,
        PORT_PROXY_CAPABILITY,
        ...(confineToWorkingDir ? [CONFINE_TO_WORKING_DIR_CAPABILITY] : []),
        ...(sandbox === false ? [] : [COMMAND_SANDBOX_CAPABILITY]),
      ]
    : [];
  const trustBoundary = describeTrustBoundary(context.options);
  const tags = ['Server Details'];
  const health = {
    exposeHeadRoute: true,
    schema: { tags, security: [], response: { 200: healthStatusSchema } },
  };

  app.get(AGENT_SERVER_ROUTES.alive, health, async () => HEALTH_OK);
  app.get(AGENT_SERVER_ROUTES.health, health, async () => HEALTH_OK);
  // The server listens only once start-up is complete, so it is always ready.
  app.get(
    AGENT_SERVER_ROUTES.ready,
    { exposeHeadRoute: true, schema: { tags, security: [], response: { 200: readyStatusSchema } } },
    async () => READY,
  );

  const serverInfo = async (): Promise<ServerInfoWire> => {
    const plugins = (await context.plugins?.status()) ?? [];
    const memory = context.memory.report();
    const now = Date.now();
    return {
      uptime: Math.floor((now - context.startedAt) / 1000),
      idle_time: Math.floor((now - context.lastActivityAt()) / 1000),
      title: 'OpenHands Agent Server',
      version: VERSION,
      sdk_version: 'unknown',
      tools_version: 'unknown',
      workspace_version: 'unknown',
      build_git_sha: buildGitSha,
      build_git_ref: buildGitRef,
      python_version: null,
      usable_tools: [...TOOL_NAMES],
      runtime_idle_timeout_seconds: null,
      capabilities: extensions
        ? [...fixedCapabilities, ...(context.plugins?.capabilities() ?? [])]
        : [],
      max_foreground_terminal_timeout_seconds: null,
      docs: '/docs',
      // There is no ReDoc page; point ReDoc readers at the Swagger UI.
      redoc: '/docs',
      plugins,
      resources: {
        server_rss_bytes: memory.serverRssBytes,
        process_trees: memory.trees.map((tree) => ({
          label: tree.label,
          pid: tree.pid,
          rss_bytes: tree.rssBytes,
        })),
        process_tree_memory_limit_bytes: memory.limitBytes ?? null,
      },
      trust_boundary: trustBoundary,
    };
  };
  const info = {
    exposeHeadRoute: true,
    schema: { tags, security: [], response: { 200: serverInfoWireSchema } },
  };
  app.get(AGENT_SERVER_ROUTES.serverInfo, info, serverInfo);
  if (!routeOptions.rootIsUi) {
    app.get('/', { ...info, schema: { ...info.schema, hide: true } }, serverInfo);
  }
}
