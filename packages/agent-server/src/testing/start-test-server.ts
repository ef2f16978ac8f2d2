import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AgentServerOptions } from '../agent-server-options.js';
import { type AgentServer, createAgentServer } from '../create-agent-server.js';

/** An agent-server on a free loopback port whose working directory is a fresh temporary one. */
export interface TestServer extends AsyncDisposable {
  server: AgentServer;
  /** Base URL. */
  url: string;
  /** The working directory (real path, symlinks resolved). */
  dir: string;
  /** Closes the server and removes the directory. */
  close(): Promise<void>;
}

/**
 * Starts a silent agent-server on port 0 of 127.0.0.1 in a new temporary working directory, for
 * tests of clients and workspace types: `await using server = await startTestServer()`.
 */
export async function startTestServer(options: AgentServerOptions = {}): Promise<TestServer> {
  const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'agent-server-test-')));
  const server = await createAgentServer({
    port: 0,
    logLevel: 'silent',
    workingDir: dir,
    ...options,
  });
  const close = async (): Promise<void> => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  };
  return { server, url: server.url, dir, close, [Symbol.asyncDispose]: close };
}
