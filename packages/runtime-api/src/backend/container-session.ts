import { describeSandboxState } from '@agent-workspace/core/internal';
import {
  AGENT_SERVER_PORT,
  containerSandboxState,
  readPublishedPorts,
} from '@agent-workspace/docker/engine';
import type Docker from 'dockerode';
import { ownLabels } from './own-labels.js';
import type { BackendSession } from './runtime-backend.js';
import { sessionIdOfContainerName } from './session-container-name.js';
import { RUNTIME_LABELS } from './session-labels.js';

/** Options of {@link containerSession}. */
export interface ContainerSessionOptions {
  docker: Docker;
  /** The backend's namespace: a claimed container's name binds a session id in it. */
  namespace: string;
  /** Host address the agent-server port is published on. */
  publishAddress: string;
  /** The session has a pause marker (see `PauseMarkers`): exited, it is `paused`, not stopped. */
  markedPaused?: boolean | undefined;
}

/** The `message` of a paused session whose container the engine stopped (an engine restart). */
export const STOPPED_WHILE_PAUSED_MESSAGE =
  'the engine stopped the paused sandbox (an engine restart); its files are kept and /resume starts it again';

/**
 * The engine's view of a session from its inspected container: its own labels (a claimed warm
 * container's session id read from its name), its published agent-server URL and its state —
 * running, paused (frozen; the URL stays), exited while paused (`paused`, without a URL: the
 * engine restarted), exited (`stopped`, `failed`, with e.g. `exited with code 137 (OOMKilled)`),
 * or still being created (`pending`).
 */
export function containerSession(
  info: Docker.ContainerInspectInfo,
  { docker, namespace, publishAddress, markedPaused }: ContainerSessionOptions,
): BackendSession {
  const labels = ownLabels(info.Config.Labels);
  const claimedBy = sessionIdOfContainerName(info.Name, namespace);
  if (claimedBy && labels[RUNTIME_LABELS.sessionId] === undefined) {
    labels[RUNTIME_LABELS.sessionId] = claimedBy;
  }
  const url = readPublishedPorts({ docker, info, publishAddress }).get(AGENT_SERVER_PORT)?.url;
  const state = containerSandboxState(info.State);
  switch (state.status) {
    case 'running':
      return { labels, status: 'running', engineState: 'running', url };
    case 'paused':
      return { labels, status: 'paused', engineState: 'pending', url };
    case 'exited':
      if (markedPaused) {
        return {
          labels,
          status: 'paused',
          engineState: 'pending',
          message: STOPPED_WHILE_PAUSED_MESSAGE,
        };
      }
      return {
        labels,
        status: 'stopped',
        engineState: 'failed',
        message: describeSandboxState(state),
      };
    default:
      return { labels, status: 'running', engineState: 'pending', url };
  }
}
