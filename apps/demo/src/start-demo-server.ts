import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAgentServer } from '@agent-workspace/agent-server';
import { RemoteWorkspace } from '@agent-workspace/core';
import { DemoUsageError } from './parse-demo-args.js';

/** Options of {@link startDemoServer}. */
export interface StartDemoServerOptions {
  /** The port on 127.0.0.1; 0 picks a free one. */
  port: number;
  /** The directory to work in; default a new temporary one. */
  workingDir?: string | undefined;
  /** Leave the temporary directory the demo made. */
  keep?: boolean | undefined;
}

/** The demo's own agent-server, serving the web page; disposing it closes it and the workspace. */
export interface DemoServer extends AsyncDisposable {
  /** The server's base URL, where the page is, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  /** The session API key it accepts: new for every start, told to the person only. */
  readonly sessionKey: string;
  /** A workspace on that server, so the conversation's loop runs inside it. */
  readonly workspace: RemoteWorkspace;
}

/**
 * Starts an agent-server in this process on 127.0.0.1, with a freshly generated session key,
 * working in `workingDir` (default a new temporary directory, removed on close unless `keep`).
 * Rejects when the page is not built (the server would answer `/` with JSON) and, with a
 * {@link DemoUsageError}, when the port is taken.
 */
export async function startDemoServer(options: StartDemoServerOptions): Promise<DemoServer> {
  const made = options.workingDir ? undefined : await mkdtemp(path.join(tmpdir(), 'agent-demo-'));
  const workingDir = options.workingDir ?? (made as string);
  const removeMade = async (): Promise<void> => {
    if (made && !options.keep) await rm(made, { recursive: true, force: true });
  };
  const sessionKey = randomBytes(24).toString('base64url');
  let server: Awaited<ReturnType<typeof createAgentServer>>;
  try {
    server = await createAgentServer({
      host: '127.0.0.1',
      port: options.port,
      workingDir,
      sessionApiKeys: [sessionKey],
      logLevel: 'warn',
    });
  } catch (error) {
    await removeMade();
    if ((error as { code?: string }).code === 'EADDRINUSE') {
      throw new DemoUsageError(
        `--port ${options.port} is in use: pick another, or 0 for a free one`,
      );
    }
    throw error;
  }
  const workspace = new RemoteWorkspace({ host: server.url, apiKey: sessionKey, workingDir });
  const close = async (): Promise<void> => {
    try {
      await workspace.close();
      await server.close();
    } finally {
      await removeMade();
    }
  };
  const page = await fetch(`${server.url}/`).catch(() => undefined);
  const isPage = page?.headers.get('content-type')?.startsWith('text/html') === true;
  await page?.body?.cancel();
  if (!isPage) {
    await close();
    throw new Error(
      'the web page is not built: run `pnpm --filter @agent-workspace/ui build` (or `pnpm build`) first',
    );
  }
  return { url: server.url, sessionKey, workspace, [Symbol.asyncDispose]: close };
}
