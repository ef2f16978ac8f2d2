import type { ActionWire, ObservationWire } from '@agent-workspace/protocol';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol/constants';
import { WorkspaceError } from '../errors/workspace-error.js';
import type { AgentServerClient, AgentServerRequest } from './agent-server-client.js';
import { errorDetail } from './error-detail.js';
import { loadWireSchemas, type WireSchemas } from './load-wire-schemas.js';

/**
 * Seconds an action may run when it names no `timeout`: the default of our agent-server's plugin
 * host (OpenHands' action server has the same two minutes).
 */
export const DEFAULT_REMOTE_ACTION_TIMEOUT_SECONDS = 120;

/**
 * Time past an action's own timeout that the client waits for the answer: the server may first
 * wait for its plugin to start (two minutes at most by default) and answers a plugin that
 * overran its timeout a few seconds later.
 */
export const REMOTE_ACTION_ANSWER_ALLOWANCE_MS = 130_000;

/** Options of {@link executeRemoteAction}. */
export interface ExecuteRemoteActionOptions {
  client: AgentServerClient;
  action: ActionWire;
  signal: AbortSignal;
  /** The client's own wait for response headers, added to the action's time. */
  requestTimeoutMs: number;
}

/**
 * `POST /execute_action` with `{"action": …}`, answering the observation (any `observation`
 * type: an action that failed in a way the agent should read is an `error` observation).
 *
 * - 400 / 422 → `INVALID_ARGUMENT` carrying the server's reason, with `details.field` when the
 *   reason names one (`action.args.url`, from a message or a validation issue's `loc`).
 * - 404 / 405 / 501 → `NOT_SUPPORTED`: the server has no action execution (an OpenHands V1
 *   agent-server).
 * - 401 / 403, 429, 5xx and the rest as every other route (`AUTHENTICATION_ERROR`,
 *   `RESOURCE_EXHAUSTED`, `SERVER_ERROR`, `PROTOCOL_ERROR`); an answer that is no observation is
 *   `PROTOCOL_ERROR`.
 *
 * The answer is awaited for the action's `timeout` (or {@link DEFAULT_REMOTE_ACTION_TIMEOUT_SECONDS})
 * plus {@link REMOTE_ACTION_ANSWER_ALLOWANCE_MS} and the request timeout.
 */
export async function executeRemoteAction({
  client,
  action,
  signal,
  requestTimeoutMs,
}: ExecuteRemoteActionOptions): Promise<ObservationWire> {
  const seconds = action.timeout ?? DEFAULT_REMOTE_ACTION_TIMEOUT_SECONDS;
  const request: AgentServerRequest = {
    method: 'POST',
    path: AGENT_SERVER_ROUTES.executeAction,
    json: { action },
    signal,
    headersTimeoutMs: requestTimeoutMs + seconds * 1000 + REMOTE_ACTION_ANSWER_ALLOWANCE_MS,
  };
  const reply = await client.call(request);
  const schemas = await loadWireSchemas();
  if (reply.status >= 200 && reply.status <= 299) {
    return client.parse(reply, request, (json) => schemas.observationWireSchema.parse(json));
  }
  const detail = await errorDetail(reply);
  const details = { host: client.host, action: action.action, status: reply.status, detail };
  if (reply.status === 400 || reply.status === 422) {
    const field = fieldOf(schemas, reply.json, detail);
    throw new WorkspaceError({
      code: 'INVALID_ARGUMENT',
      message: `the agent-server at ${client.host} refused the ${action.action} action: ${detail}`,
      details: { ...details, ...(field === undefined ? {} : { field }) },
    });
  }
  if (reply.status === 404 || reply.status === 405 || reply.status === 501) {
    throw new WorkspaceError({
      code: 'NOT_SUPPORTED',
      message: `the agent-server at ${client.host} does not execute actions (HTTP ${reply.status} on POST ${AGENT_SERVER_ROUTES.executeAction}): it is not an agent-server with runtime plugins`,
      details,
    });
  }
  throw client.statusError(reply, request);
}

/**
 * The field a refusal names: the first validation issue's `loc` without its source (`body`), or
 * a message that starts with `action…` (as our server words them: `action.args.url must …`,
 * `body.action.timeout: …`).
 */
function fieldOf(
  { errorEnvelopeSchema }: WireSchemas,
  json: unknown,
  detail: string,
): string | undefined {
  const envelope = errorEnvelopeSchema.safeParse(json);
  if (envelope.success && Array.isArray(envelope.data.detail)) {
    const loc = envelope.data.detail[0]?.loc ?? [];
    const path = loc[0] === 'body' || loc[0] === 'query' ? loc.slice(1) : loc;
    return path.length > 0 ? path.join('.') : undefined;
  }
  return /^(?:body\.)?(action(?:\.[\w-]+)*)(?=\s|:|$)/.exec(detail)?.[1];
}
