import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  type AgentServer,
  type AgentServerOptions,
  createAgentServer,
} from '@agent-workspace/agent-server';

/** The built agent-server on a free loopback port, working in a fresh temporary directory. */
export interface TestServer {
  server: AgentServer;
  /** Base URL. */
  url: string;
  /** The working directory (real path, symlinks resolved). */
  dir: string;
  /** Closes the server and removes the directory. */
  close(): Promise<void>;
}

/**
 * Starts a silent agent-server through the package's public entry (as a user would) on port 0
 * in a new temporary working directory.
 */
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
