import { mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AgentServerOptions } from '../agent-server-options.js';
import { type AgentServer, createAgentServer } from '../create-agent-server.js';

/** A server on a free loopback port whose working directory is a fresh temporary directory. */
export interface TestServer {
  server: AgentServer;
  /** Base URL. */
  url: string;
  /** The working directory (real path, symlinks resolved). */
  dir: string;
  /** Closes the server and removes the directory. */
  close(): Promise<void>;
}

/** Starts a silent agent-server on port 0 in a new temporary working directory. */
export async function startTestServer(options: AgentServerOptions = {}): Promise<TestServer> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'agent-server-test-')));
  const server = await createAgentServer({
    port: 0,
    logLevel: 'silent',
    workingDir: dir,
    ...options,
  });
  return {
    server,
    url: server.url,
    dir,
    close: async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A confined test server whose working directory holds `escape`, a symlink to `outside`. */
export interface ConfinedTestServer extends TestServer {
  /** A directory outside the working directory. */
  outside: string;
}

/** Starts a server with `confineToWorkingDir` and an `escape` symlink leading outside it. */
export async function startConfinedTestServer(): Promise<ConfinedTestServer> {
  const server = await startTestServer({ confineToWorkingDir: true });
  const outside = await mkdtemp(path.join(os.tmpdir(), 'agent-server-outside-'));
  await symlink(outside, path.join(server.dir, 'escape'));
  return {
    ...server,
    outside,
    close: async () => {
      await server.close();
      await rm(outside, { recursive: true, force: true });
    },
  };
}
