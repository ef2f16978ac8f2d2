import { DockerRuntimeBackend } from '../../backend/docker-runtime-backend.js';
import { createRuntimeApiServer, type RuntimeApiServer } from '../create-runtime-api-server.js';
import type { RuntimeApiServerOptions } from '../runtime-api-server-options.js';

/** Options of {@link dockerRuntimeApiServers}. */
export interface DockerRuntimeApiServersOptions {
  /** The Runtime API key every server accepts. */
  apiKey: string;
  /** The session key secret of every server: a later server derives the same session keys. */
  sessionKeySecret: string;
  /** The one image sessions may run. */
  image: string;
  /** The label namespace of the servers' Docker backends. */
  namespace: string;
  /** The file's server options over the test defaults. */
  defaults?: Partial<RuntimeApiServerOptions>;
}

/** Runtime API servers of one test file, one after another or side by side on one engine. */
export interface DockerRuntimeApiServers {
  /**
   * Starts a server on a free port, without logs, with a new Docker backend (nothing but the
   * engine carries over from an earlier server); `defaults`, then `options` over those.
   */
  serve(options?: Partial<RuntimeApiServerOptions>): Promise<RuntimeApiServer>;
  /** Closes every server started since the last call; for `afterEach`. */
  closeAll(): Promise<void>;
}

/** Starts and closes the Runtime API servers of a test file that runs them on Docker. */
export function dockerRuntimeApiServers(
  options: DockerRuntimeApiServersOptions,
): DockerRuntimeApiServers {
  const servers: RuntimeApiServer[] = [];
  return {
    serve: async (serverOptions = {}) => {
      const server = await createRuntimeApiServer({
        apiKeys: [options.apiKey],
        sessionKeySecret: options.sessionKeySecret,
        backend: new DockerRuntimeBackend({ namespace: options.namespace }),
        images: [options.image],
        port: 0,
        logLevel: 'silent',
        ...options.defaults,
        ...serverOptions,
      });
      servers.push(server);
      return server;
    },
    closeAll: async () => {
      await Promise.all(servers.splice(0).map((server) => server.close()));
    },
  };
}
