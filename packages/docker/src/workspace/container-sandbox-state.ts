import type { SandboxState } from '@agent-workspace/core';
import type Docker from 'dockerode';

/** Maps `docker inspect`'s `State` to a {@link SandboxState}. */
export function containerSandboxState(state: Docker.ContainerInspectInfo['State']): SandboxState {
  const detail = [state.OOMKilled && 'OOMKilled', state.Error].filter(Boolean).join(', ');
  const extra = detail ? { detail } : {};
  switch (state.Status) {
    case 'created':
    case 'restarting':
      return { status: 'starting', ...extra };
    case 'running':
      return { status: state.Paused ? 'paused' : 'running', ...extra };
    case 'paused':
      return { status: 'paused', ...extra };
    default:
      // exited, dead, removing
      return { status: 'exited', exitCode: state.ExitCode, ...extra };
  }
}
