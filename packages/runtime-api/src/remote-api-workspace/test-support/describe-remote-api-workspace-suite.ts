import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RemoteWorkspace, WorkspaceError } from '@agent-workspace/core';
import {
  RemoteAPIWorkspace,
  type RemoteAPIWorkspaceOptions,
  RuntimeApiClient,
} from '@agent-workspace/remote-api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DockerRuntimeBackend } from '../../backend/docker-runtime-backend.js';
import type { RuntimeBackend } from '../../backend/runtime-backend.js';
import { SwarmRuntimeBackend } from '../../backend/swarm-runtime-backend.js';
import {
  createRuntimeApiServer,
  type RuntimeApiServer,
} from '../../server/create-runtime-api-server.js';
import { keyedStatus, pollUntil } from '../../test-support/agent-server-probe.js';
import { remoteApiTestContext } from '../../test-support/remote-api-test-context.js';
import { ProxiedBackend } from './proxied-backend.js';
import { RecordingTcpProxy } from './recording-tcp-proxy.js';

/** The engines a Runtime API server of this package runs sessions on. */
export type BackendKind = 'docker' | 'swarm';

/** The error `promise` rejects with. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

/** Runs `command` and returns its stdout, failing the test on a non-zero exit. */
export async function run(workspace: RemoteAPIWorkspace, command: string): Promise<string> {
  const result = await workspace.executeCommand(command);
  expect(result.exitCode, `${command}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/**
 * The RemoteAPIWorkspace suite against the real Runtime API server on the real `kind` backend
 * and the real agent-server image: a whole life (commands, files, git, pause, resume, close),
 * attaching by session id, a paused session resumed on attach, the Runtime API server restarted
 * mid-life, both keys refused when wrong, and the proof — through recording TCP proxies on both
 * hops — that neither key crosses to the other hop.
 */
export function describeRemoteApiWorkspaceSuite(kind: BackendKind): void {
  const context = remoteApiTestContext();
  const runtimeKey = `runtime-${randomBytes(24).toString('hex')}`;
  const sessionKeySecret = randomBytes(32).toString('hex');
  const makeBackend = (): RuntimeBackend =>
    kind === 'docker'
      ? new DockerRuntimeBackend({ namespace: context.namespace })
      : new SwarmRuntimeBackend({ namespace: context.namespace });
  const startServer = (backend: RuntimeBackend, port = 0) =>
    createRuntimeApiServer({
      apiKeys: [runtimeKey],
      sessionKeySecret,
      backend,
      images: [context.image],
      port,
      logLevel: 'silent',
    });

  context.describe(`RemoteAPIWorkspace on the ${kind} backend`, () => {
    let server: RuntimeApiServer;
    let runtime: RuntimeApiClient;
    let localDir: string;

    beforeAll(async () => {
      server = await startServer(makeBackend());
      runtime = new RuntimeApiClient({ url: server.url, apiKey: runtimeKey });
      localDir = await mkdtemp(path.join(tmpdir(), 'remote-api-client-'));
    });
    afterAll(async () => {
      await runtime?.close();
      await server?.close();
      if (localDir) await rm(localDir, { recursive: true, force: true });
      await context.cleanup();
    });

    const options = (
      extra: Partial<RemoteAPIWorkspaceOptions> = {},
    ): RemoteAPIWorkspaceOptions => ({
      runtimeApiUrl: server.url,
      runtimeApiKey: runtimeKey,
      image: context.image,
      ...extra,
    });

    it('runs commands, moves files and reads git; pauses, resumes, and stops on close', async () => {
      const workspace = await RemoteAPIWorkspace.create(options({ env: { GREETING: 'hello' } }));
      try {
        expect(workspace.runtimeId).toMatch(/^[0-9a-f]{32}$/);
        expect(workspace.runtimeUrl).toBe(workspace.host);
        expect(await run(workspace, 'pwd')).toBe('/workspace\n');
        expect(await run(workspace, 'echo "$GREETING"')).toBe('hello\n');
        expect(await workspace.identity()).toMatchObject({
          projectionKind: 'container',
          anchor: '/workspace',
        });
        const failed = await workspace.executeCommand('exit 3');
        expect(failed.exitCode).toBe(3);

        const source = path.join(localDir, `${kind}-upload.bin`);
        const back = path.join(localDir, `${kind}-download.bin`);
        const bytes = randomBytes(256 * 1024);
        await writeFile(source, bytes);
        expect((await workspace.fileUpload(source, 'data/upload.bin')).success).toBe(true);
        expect(await run(workspace, 'wc -c < data/upload.bin')).toBe(`${bytes.length}\n`);
        expect((await workspace.fileDownload('data/upload.bin', back)).success).toBe(true);
        expect((await readFile(back)).equals(bytes)).toBe(true);

        await run(
          workspace,
          [
            'git init -q repo && cd repo',
            'git config user.email test@example.com && git config user.name test',
            'printf "one\\n" > a.txt && git add a.txt && git commit -qm init',
            'printf "two\\n" >> a.txt && printf "new\\n" > b.txt',
          ].join(' && '),
        );
        expect(await workspace.gitChanges('repo')).toEqual([
          { status: 'UPDATED', path: 'a.txt' },
          { status: 'ADDED', path: 'b.txt' },
        ]);
        expect(await workspace.gitDiff('repo/a.txt')).toEqual({
          original: 'one\n',
          modified: 'one\ntwo\n',
        });

        const hostBefore = workspace.host;
        await workspace.pause();
        expect((await runtime.getSession(workspace.sessionId))?.status).toBe('paused');
        const paused = await rejectionOf(workspace.executeCommand('true'));
        expect(WorkspaceError.isInstance(paused, 'WORKSPACE_PAUSED')).toBe(true);
        expect(
          WorkspaceError.isInstance(
            await rejectionOf(workspace.gitChanges('repo')),
            'WORKSPACE_PAUSED',
          ),
        ).toBe(true);

        await workspace.resume();
        // Docker unpauses the same container; Swarm starts a new task (on a single node it
        // gets the service's published port again). Moving is tested below.
        if (kind === 'docker') expect(workspace.host).toBe(hostBefore);
        expect(workspace.host).toBe(workspace.runtimeUrl);
        expect(await run(workspace, 'cat repo/b.txt')).toBe('new\n');
        expect(await run(workspace, 'wc -c < data/upload.bin')).toBe(`${bytes.length}\n`);
      } finally {
        await workspace.close();
      }
      expect(workspace.status).toBe('closed');
      expect(await runtime.getSession(workspace.sessionId)).toBeUndefined();
    });

    it('attaches to a session by id; keepAlive leaves it to the next workspace', async () => {
      const first = await RemoteAPIWorkspace.create(options({ keepAlive: true }));
      await run(first, 'echo from-first > mark.txt');
      await first.close();
      const kept = await runtime.getSession(first.sessionId);
      expect(kept).toMatchObject({ status: 'running', runtimeId: first.runtimeId });

      const second = await RemoteAPIWorkspace.create(options({ sessionId: first.sessionId }));
      try {
        expect(second.runtimeId).toBe(first.runtimeId);
        expect(await run(second, 'cat mark.txt')).toBe('from-first\n');
      } finally {
        await second.close();
      }
      expect(await runtime.getSession(first.sessionId)).toBeUndefined();
    });

    it('pauses on close with pauseOnClose, and resumes a paused session on attach', async () => {
      const first = await RemoteAPIWorkspace.create(options({ pauseOnClose: true }));
      await run(first, 'echo kept > paused.txt');
      await first.close();
      expect((await runtime.getSession(first.sessionId))?.status).toBe('paused');

      const second = await RemoteAPIWorkspace.create(options({ sessionId: first.sessionId }));
      try {
        expect((await runtime.getSession(first.sessionId))?.status).toBe('running');
        expect(await run(second, 'cat paused.txt')).toBe('kept\n');
      } finally {
        await second.close();
      }
      expect(await runtime.getSession(first.sessionId)).toBeUndefined();
    });

    it('keeps working while the Runtime API server is replaced, then pauses and closes', async () => {
      const workspace = await RemoteAPIWorkspace.create(options());
      try {
        const port = Number(new URL(server.url).port);
        await server.close();
        // The agent-server needs no Runtime API.
        expect(await run(workspace, 'echo alone')).toBe('alone\n');
        // Same secret, same namespace, same address: it knows the session from the engine.
        server = await startServer(makeBackend(), port);
        await workspace.pause();
        await workspace.resume();
        expect(await run(workspace, 'echo back')).toBe('back\n');
      } finally {
        await workspace.close();
      }
      expect(await runtime.getSession(workspace.sessionId)).toBeUndefined();
    });

    it('follows its session to a new address after resume (the old one dead)', async () => {
      const backend = new ProxiedBackend(makeBackend(), { relocateOnResume: true });
      await using movingServer = await startServer(backend);
      const workspace = await RemoteAPIWorkspace.create(
        options({ runtimeApiUrl: movingServer.url }),
      );
      try {
        await run(workspace, 'echo before > moved.txt');
        const hostBefore = workspace.host;
        await workspace.pause();
        await workspace.resume();
        expect(workspace.host).not.toBe(hostBefore);
        expect(workspace.host).toBe(workspace.runtimeUrl);
        expect(await run(workspace, 'cat moved.txt')).toBe('before\n');
        // Nothing answers at the old address any more: the workspace really moved.
        const old = await fetch(`${hostBefore}/health`).then(
          () => 'answered',
          () => 'refused',
        );
        expect(old).toBe('refused');
        expect(backend.proxies).toBe(2);
      } finally {
        await workspace.close();
        await backend.close();
      }
      expect(await runtime.getSession(workspace.sessionId)).toBeUndefined();
    });

    it('stops the session it started when the start is aborted', async () => {
      const controller = new AbortController();
      const workspace = new RemoteAPIWorkspace(options());
      let settled = false;
      const outcome = workspace
        .start({ signal: controller.signal })
        .then(
          () => 'started',
          (error: unknown) => error,
        )
        .finally(() => {
          settled = true;
        });
      // Abort once the Runtime API has made the session, while the workspace waits for it.
      await pollUntil(
        () => runtime.getSession(workspace.sessionId),
        (session) => session !== undefined || settled,
        { what: `session ${workspace.sessionId} to exist` },
      );
      controller.abort();
      const error = await outcome;
      expect(WorkspaceError.isInstance(error, 'ABORTED'), String(error)).toBe(true);
      await workspace.close();
      expect(await runtime.getSession(workspace.sessionId)).toBeUndefined();
    });

    it('refuses a wrong runtime key as the Runtime API, starting nothing', async () => {
      const wrongKey = `wrong-${randomBytes(16).toString('hex')}`;
      const workspace = new RemoteAPIWorkspace(options({ runtimeApiKey: wrongKey }));
      const error = await rejectionOf(workspace.start());
      await workspace.close();
      expect(WorkspaceError.isInstance(error, 'AUTHENTICATION_ERROR')).toBe(true);
      const message = (error as WorkspaceError).message;
      expect(message).toContain(`the Runtime API at ${server.url}`);
      expect(message).toContain('runtimeApiKey');
      expect(message).not.toContain(wrongKey);
      expect(await runtime.getSession(workspace.sessionId)).toBeUndefined();
    });

    it('has its agent-server refuse a wrong session key (401)', async () => {
      await using workspace = await RemoteAPIWorkspace.create(options());
      const { host, apiKey } = await workspace.agentServerEndpoint();
      expect(await keyedStatus(host, apiKey!)).toBe(200);
      expect(await keyedStatus(host, `${apiKey}x`)).toBe(401);
      // Nor is the runtime key a session key.
      expect(await keyedStatus(host, runtimeKey)).toBe(401);
      await using impostor = new RemoteWorkspace({
        host,
        workingDir: '/workspace',
        apiKey: 'not-the-key',
      });
      const refused = await rejectionOf(impostor.executeCommand('true'));
      expect(WorkspaceError.isInstance(refused, 'AUTHENTICATION_ERROR')).toBe(true);
      expect((refused as WorkspaceError).message).toContain('agent-server');
    });

    it('sends each key on its own hop only (recorded on both hops)', async () => {
      const backend = new ProxiedBackend(makeBackend());
      await using proxiedServer = await startServer(backend);
      const serverUrl = new URL(proxiedServer.url);
      const runtimeHop = await RecordingTcpProxy.start(serverUrl.hostname, Number(serverUrl.port));
      let sessionKey: string | undefined;
      try {
        const workspace = await RemoteAPIWorkspace.create(
          options({ runtimeApiUrl: runtimeHop.url }),
        );
        try {
          sessionKey = (await workspace.agentServerEndpoint()).apiKey;
          expect(sessionKey).toMatch(/^[0-9a-f]{64}$/);
          expect(await run(workspace, 'echo life')).toBe('life\n');
          const source = path.join(localDir, `${kind}-hop.txt`);
          await writeFile(source, 'hop');
          await workspace.fileUpload(source, 'hop.txt');
          await workspace.fileDownload('hop.txt', `${source}.back`);
          await run(workspace, 'git init -q g && cd g && printf x > x.txt');
          expect(await workspace.gitChanges('g')).toEqual([{ status: 'ADDED', path: 'x.txt' }]);
          await workspace.pause();
          await workspace.resume();
          expect(await run(workspace, 'cat hop.txt')).toBe('hop');
        } finally {
          await workspace.close();
        }
        expect(await runtime.getSession(workspace.sessionId)).toBeUndefined();

        const toRuntimeApi = runtimeHop.sent();
        const toAgentServer = await backend.sent();
        const fromAgentServer = await backend.received();
        expect(backend.proxies).toBeGreaterThan(0);
        // Each key did cross its own hop, so the checks below could fail.
        expect(toRuntimeApi.includes(runtimeKey)).toBe(true);
        expect(toAgentServer.includes(sessionKey!)).toBe(true);
        // Neither crossed the other.
        expect(toAgentServer.includes(runtimeKey)).toBe(false);
        expect(fromAgentServer.includes(runtimeKey)).toBe(false);
        expect(toRuntimeApi.includes(sessionKey!)).toBe(false);
        expect(toRuntimeApi.toString('latin1').toLowerCase()).not.toContain('x-session-api-key');
      } finally {
        await runtimeHop.close();
        await backend.close();
      }
    });
  });
}
