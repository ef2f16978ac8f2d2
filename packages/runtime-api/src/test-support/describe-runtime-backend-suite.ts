import { WorkspaceError } from '@agent-workspace/core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type {
  BackendSession,
  RuntimeBackend,
  SessionResources,
  SessionSpec,
} from '../backend/runtime-backend.js';
import { RUNTIME_LABELS } from '../backend/session-labels.js';
import { keyedStatus, pollUntil, waitUntilHealthy } from './agent-server-probe.js';
import { expectWorkspaceError } from './expect-workspace-error.js';
import type { RemoteApiTestContext } from './remote-api-test-context.js';
import { testSession } from './test-session.js';
import { untilRunning } from './until-running.js';

/** What the backend's own cases of {@link describeRuntimeBackendSuite} work with. */
export interface RuntimeBackendSuite {
  /** The backend under test. */
  readonly backend: RuntimeBackend;
  /** The main session: started before the first case, stopped by the last. */
  readonly spec: SessionSpec;
  /** The clear session key of {@link spec}. */
  readonly key: string;
  /** Name of the main session's container or service. */
  readonly objectName: string;
  /** The main session as it first ran at its address (set before the first case). */
  readonly running: BackendSession;
}

/** The race of two starts of one session id in {@link describeRuntimeBackendSuite}. */
export interface RuntimeBackendRace {
  /** The backend racing the suite's (racer 1; the suite's is racer 0). */
  rival: RuntimeBackend;
  /** Resources both starts ask for; none when unset. */
  resources?: SessionResources | undefined;
  /** Checks the sandbox of session `sessionId`, started by racer `winner`. */
  checkWinner?(winner: number, sessionId: string): Promise<void>;
}

/** An engine object `stop` must remove: a container, service or volume. */
export interface RemovedEngineObject {
  /** Rejects with the engine's `statusCode` when the object is gone. */
  inspect(): Promise<unknown>;
}

/** Options of {@link describeRuntimeBackendSuite}. */
export interface RuntimeBackendSuiteOptions {
  /** The suite's name. */
  name: string;
  /** The test file's engine, image and namespace. */
  context: RemoteApiTestContext;
  /** A new backend object of `options.namespace`. */
  newBackend(options: { namespace: string }): RuntimeBackend;
  /** What a session's sandbox is on this backend, as the case names say it (`container`). */
  sandbox: string;
  /** The engine object name of a session (container or service). */
  objectName(namespace: string, sessionId: string): string;
  /** Resources of the main session. */
  resources: SessionResources;
  /** Whether `start` answers a session already running at its address; else the suite waits. */
  startsRunning: boolean;
  /** The race of two starts of one session id. */
  race: RuntimeBackendRace;
  /** The message of a session whose agent-server exited with code 1: the text, or its pattern. */
  exitMessage: string | RegExp;
  /** What `stop` removes, as the case name says it (`the container`). */
  removes: string;
  /** The engine objects of the main session that `stop` removes. */
  removedObjects(suite: RuntimeBackendSuite): RemovedEngineObject[];
  /** Declares the backend's own cases: they run after the shared ones, before the final stop. */
  cases(suite: RuntimeBackendSuite): void;
}

/**
 * The cases every {@link RuntimeBackend} passes on a real engine, around the backend's own: a main
 * session started before them that accepts its key and only it, the engine as the only record
 * (any backend of the namespace sees the session, no other does), a taken session id and a race
 * of two starts, an aborted start, a sandbox whose agent-server exits, and — last — `stop`.
 */
export function describeRuntimeBackendSuite(options: RuntimeBackendSuiteOptions): void {
  const { context, newBackend } = options;
  const { image, namespace } = context;

  context.describe(options.name, () => {
    const backend = newBackend({ namespace });
    const { spec, key } = testSession({ namespace, image, resources: options.resources });
    let started: BackendSession;
    let running: BackendSession;
    const suite: RuntimeBackendSuite = {
      backend,
      spec,
      key,
      objectName: options.objectName(namespace, spec.sessionId),
      get running() {
        return running;
      },
    };

    beforeAll(async () => {
      started = await backend.start(spec);
      running = options.startsRunning ? started : await untilRunning(backend, spec.runtimeId);
    });
    afterAll(() => context.cleanup());

    test(`starts a ${options.sandbox} whose agent-server accepts the session key and only it`, async () => {
      expect(started).toMatchObject({ status: 'running', labels: spec.labels });
      expect(running).toMatchObject({ status: 'running', engineState: 'running' });
      expect(running.labels).toEqual(spec.labels);
      // Docker publishes on loopback; Swarm in host mode on the node's address (127.0.0.1 here).
      expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      await waitUntilHealthy(running.url!);
      expect(await keyedStatus(running.url!, key)).toBe(200);
      expect(await keyedStatus(running.url!, `${key}x`)).toBe(401);
    });

    test('the engine is the record: any backend of the namespace sees the session, no other does', async () => {
      const expected = {
        status: 'running',
        engineState: 'running',
        url: running.url,
        labels: spec.labels,
      };
      expect(await backend.get(spec.sessionId)).toMatchObject(expected);
      expect(await backend.getByRuntimeId(spec.runtimeId)).toMatchObject(expected);
      expect(await backend.list()).toEqual([expect.objectContaining(expected)]);
      const another = newBackend({ namespace });
      expect(await another.get(spec.sessionId)).toMatchObject(expected);
      expect(await another.list()).toHaveLength(1);
      const foreign = newBackend({ namespace: `${namespace}-other` });
      expect(await foreign.get(spec.sessionId)).toBeUndefined();
      expect(await foreign.getByRuntimeId(spec.runtimeId)).toBeUndefined();
      expect(await foreign.list()).toEqual([]);
      expect(await foreign.stop(spec.runtimeId)).toBe(false);
      await expectWorkspaceError(foreign.pause(spec.runtimeId), 'NOT_FOUND');
      expect(await backend.get(spec.sessionId)).toMatchObject({ status: 'running' });
    });

    test('a taken session id is ALREADY_EXISTS, and of two concurrent starts exactly one wins', async () => {
      const again = testSession({ namespace, image, sessionId: spec.sessionId });
      const error = await expectWorkspaceError(backend.start(again.spec), 'ALREADY_EXISTS');
      expect(error.message).toContain(spec.sessionId);
      expect(await backend.getByRuntimeId(again.spec.runtimeId)).toBeUndefined();

      const { rival, resources, checkWinner } = options.race;
      const sessionId = `race-${spec.runtimeId}`;
      const results = await Promise.allSettled(
        [backend, rival].map((racer) =>
          racer.start(testSession({ namespace, image, sessionId, resources }).spec),
        ),
      );
      const won = results.filter((result) => result.status === 'fulfilled');
      const lost = results.flatMap((result) =>
        result.status === 'rejected' ? [result.reason] : [],
      );
      expect(won).toHaveLength(1);
      expect(lost.map((reason) => WorkspaceError.isInstance(reason) && reason.code)).toEqual([
        'ALREADY_EXISTS',
      ]);
      await checkWinner?.(
        results.findIndex((result) => result.status === 'fulfilled'),
        sessionId,
      );
      const winner = await backend.get(sessionId);
      expect(await backend.stop(winner!.labels[RUNTIME_LABELS.runtimeId]!)).toBe(true);
    });

    test('an aborted start is ABORTED and creates nothing', async () => {
      const aborted = testSession({ namespace, image });
      await expectWorkspaceError(
        backend.start(aborted.spec, { signal: AbortSignal.abort() }),
        'ABORTED',
      );
      expect(await backend.get(aborted.spec.sessionId)).toBeUndefined();
    });

    test('a sandbox whose agent-server exits is stopped and failed, with its exit code and logs', async () => {
      const failing = testSession({
        namespace,
        image,
        environment: { NODE_OPTIONS: '--require=/no-such-preload-module' },
      });
      await backend.start(failing.spec);
      const session = await pollUntil(
        () => backend.getByRuntimeId(failing.spec.runtimeId),
        (value) => value?.status === 'stopped',
        { what: 'the failing sandbox to stop' },
      );
      const { exitMessage } = options;
      expect(session).toMatchObject({
        engineState: 'failed',
        message: typeof exitMessage === 'string' ? exitMessage : expect.stringMatching(exitMessage),
      });
      expect(session?.url).toBeUndefined();
      const logs = await backend.logs(failing.spec.runtimeId, { tailLines: 50 });
      expect(logs).toContain('/no-such-preload-module');
      expect(await backend.stop(failing.spec.runtimeId)).toBe(true);
    });

    options.cases(suite);

    test(`stop removes ${options.removes}; a second stop is false and the runtime id is unknown`, async () => {
      expect(await backend.stop(spec.runtimeId)).toBe(true);
      for (const removed of options.removedObjects(suite)) {
        const status = await removed.inspect().then(
          () => 200,
          (error: { statusCode?: number }) => error.statusCode,
        );
        expect(status).toBe(404);
      }
      expect(await backend.get(spec.sessionId)).toBeUndefined();
      expect(await backend.stop(spec.runtimeId)).toBe(false);
      await expectWorkspaceError(backend.pause(spec.runtimeId), 'NOT_FOUND');
      await expectWorkspaceError(backend.resume(spec.runtimeId), 'NOT_FOUND');
      await expectWorkspaceError(backend.logs(spec.runtimeId, { tailLines: 10 }), 'NOT_FOUND');
    });
  });
}
