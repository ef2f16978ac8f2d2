import { mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../testing/start-test-server.js';

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
