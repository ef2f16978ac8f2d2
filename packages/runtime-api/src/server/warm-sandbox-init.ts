import {
  AGENT_SERVER_ROUTES,
  type InitState,
  initStatusWireSchema,
} from '@agent-workspace/protocol';
import { type ProbeOptions, withAgentServer } from './probe-agent-server.js';

/**
 * The deferred-init state of the warm agent-server at `url` (`GET /api/init`, open). Throws a
 * `WorkspaceError` when it does not answer 200 with an init status (e.g. 404: not started with
 * `--defer-init`).
 */
export async function warmSandboxInitState(url: string, options: ProbeOptions): Promise<InitState> {
  return withAgentServer(url, undefined, options, async (client, signal) => {
    const request = { method: 'GET', path: AGENT_SERVER_ROUTES.init, signal } as const;
    return (await client.json(request, initStatusWireSchema)).state;
  });
}

/**
 * Initializes the dormant warm agent-server at `url` for its claiming session: `POST /api/init`
 * with the sandbox's `initKey` in `X-Init-API-Key`, making `sessionKey` the only key it accepts
 * from then on (the init key stops working). Throws a `WorkspaceError` (never holding either key)
 * when the server refuses (401, 400 after an earlier init, …) or does not end `ready`.
 */
export async function initWarmSandbox(
  url: string,
  initKey: string,
  sessionKey: string,
  options: ProbeOptions,
): Promise<void> {
  try {
    await withAgentServer(url, { init: initKey }, options, async (client, signal) => {
      const request = {
        method: 'POST',
        path: AGENT_SERVER_ROUTES.init,
        json: { session_api_keys: [sessionKey] },
        signal,
      } as const;
      const status = await client.json(request, initStatusWireSchema);
      if (status.state !== 'ready') {
        throw new Error(`the warm agent-server is '${status.state}' after init, not 'ready'`);
      }
    });
  } catch (error) {
    // The client redacts the init key; an echoed session key is dropped with the whole cause.
    const message = (error as Error).message;
    if (message.includes(sessionKey)) throw new Error('the warm agent-server refused init');
    throw error;
  }
}
