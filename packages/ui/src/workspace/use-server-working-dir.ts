import type { WorkspaceIdentityWire } from '@agent-workspace/protocol';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol/constants';
import { useEffect, useState } from 'preact/hooks';
import { useClient } from '../app/client-context.js';
import { messageOf } from './message-of.js';

/** The directory the workspace panel shows, once known, or why it is not. */
export interface WorkingDirState {
  readonly dir: string | null;
  readonly error: string | null;
}

/**
 * `workingDir` when given; otherwise the server's working directory, asked of
 * `GET /api/workspace/identity` (its `cwd`).
 */
export function useServerWorkingDir(workingDir: string | null): WorkingDirState {
  const client = useClient();
  const [state, setState] = useState<WorkingDirState>({ dir: workingDir, error: null });
  useEffect(() => {
    if (workingDir !== null) {
      setState({ dir: workingDir, error: null });
      return;
    }
    const controller = new AbortController();
    setState({ dir: null, error: null });
    client
      .json<WorkspaceIdentityWire>(AGENT_SERVER_ROUTES.workspaceIdentity, {
        signal: controller.signal,
      })
      .then(
        (identity) => setState({ dir: identity.cwd, error: null }),
        (error: unknown) => {
          if (controller.signal.aborted) return;
          setState({
            dir: null,
            error: `Cannot find the server's working directory: ${messageOf(error)}`,
          });
        },
      );
    return () => controller.abort();
  }, [client, workingDir]);
  return state;
}
