import { AGENT_SERVER_LISTENING_EVENT } from '@agent-workspace/protocol';
import type Docker from 'dockerode';
import { RUNTIME_LABELS } from '../../backend/session-labels.js';
import { pollUntil } from '../../test-support/agent-server-probe.js';
import type { EngineProxy } from './engine-proxy.js';
import type { Answer } from './runtime-api-call.js';

/** Input of {@link startWithDyingSandbox}. */
export interface StartWithDyingSandboxOptions {
  docker: Docker;
  /** The proxy the server's engine calls go through. */
  proxy: EngineProxy;
  /** The session `start` starts. */
  sessionId: string;
  /** Sends the `/start` of {@link sessionId} to the server. */
  start: () => Promise<Answer>;
}

/**
 * Starts a session whose sandbox dies as it starts: holds back the engine's answer to the
 * container start, waits until the sandbox's agent-server logged that it listens, kills the
 * sandbox with SIGKILL and waits until the engine reports it stopped, then lets the answer
 * through. Resolves with the server's answer to the `/start`.
 */
export async function startWithDyingSandbox({
  docker,
  proxy,
  sessionId,
  start,
}: StartWithDyingSandboxOptions): Promise<Answer> {
  proxy.holdStarts();
  const answer = start();
  await proxy.untilHeld(1);
  // The start ran: the agent-server comes up and logs; then the sandbox dies before the
  // server hears the engine's answer.
  const [found] = await docker.listContainers({
    all: true,
    filters: { label: [`${RUNTIME_LABELS.sessionId}=${sessionId}`] },
  });
  const container = docker.getContainer(found!.Id);
  await pollUntil(
    async () => (await container.logs({ stdout: true, stderr: true })).toString('utf8'),
    (logs) => logs.includes(AGENT_SERVER_LISTENING_EVENT),
    { what: 'the agent-server to log that it listens' },
  );
  await container.kill({ signal: 'SIGKILL' });
  await pollUntil(
    () => container.inspect(),
    (info) => !info.State.Running,
    { what: 'the killed sandbox to stop' },
  );
  proxy.release();
  return answer;
}
