import { setTimeout as sleep } from 'node:timers/promises';
import type { BashOutput } from '@agent-workspace/protocol';
import { AGENT_SERVER_ROUTES, bashEventPath } from '@agent-workspace/protocol/constants';
import { WorkspaceError } from '../errors/workspace-error.js';
import { Backoff } from '../internal/backoff.js';
import type { AgentServerClient } from './agent-server-client.js';
import { loadWireSchemas, type WireSchemas } from './load-wire-schemas.js';

/** First and longest pause between polls that found nothing new, in milliseconds. */
const POLL_INTERVAL_MS = { initial: 1, max: 100 } as const;

/** Options of {@link pollBashCommand}. */
export interface PollBashCommandOptions {
  client: AgentServerClient;
  /** 32-hex id of the `BashCommand`. */
  commandId: string;
  /** Receives each new `BashOutput`, in order, exactly once. */
  onOutput?: ((event: BashOutput) => void) | undefined;
  /** `performance.now()` after which polling stops with `{ kind: 'deadline' }`. */
  deadline: number;
  /** How long polls may keep failing (connection errors, 503) before giving up. */
  reconnectTimeoutMs: number;
  signal?: AbortSignal | undefined;
}

/** How polling ended: the final event (non-null `exitCode`), or the deadline. */
export type PollOutcome = { kind: 'exit'; event: BashOutput } | { kind: 'deadline' };

/**
 * Follows a command's `BashOutput` events through `GET /api/bash/bash_events/search` until one
 * carries an exit code (the plain OpenHands protocol).
 *
 * - Pages: `next_page_id` is followed at once and the last page is polled again, so more than
 *   100 events are never missed (OpenHands applies `order__gt` after paging).
 * - Dedupe: an event whose `order` is not above the last one delivered is dropped.
 * - Cadence: the pause starts at 1 ms, doubles while polls find nothing up to 100 ms and
 *   resets when data arrives.
 * - Failures: connection errors and 503 are retried for `reconnectTimeoutMs`; afterwards, and
 *   for any other failure, the typed error is thrown. After a recovery the command is looked up
 *   by id: a server that lost it is a `CONNECTION_ERROR`, never a fake exit code.
 * - The deadline only ends polling while the server answers; while it is unreachable the
 *   reconnect budget decides.
 */
export async function pollBashCommand(options: PollBashCommandOptions): Promise<PollOutcome> {
  const { client, commandId, signal } = options;
  const schemas = await loadWireSchemas();
  const interval = new Backoff({
    initialMs: POLL_INTERVAL_MS.initial,
    maxMs: POLL_INTERVAL_MS.max,
  });
  let lastOrder = -1;
  let pageId: string | undefined;
  let failingSince: number | undefined;
  let retry: Backoff | undefined;
  for (;;) {
    signal?.throwIfAborted();
    let page: Awaited<ReturnType<typeof searchPage>>;
    try {
      page = await searchPage(schemas, client, commandId, lastOrder, pageId, signal);
      if (failingSince !== undefined) {
        failingSince = undefined;
        await assertCommandKnown(schemas, client, commandId, signal);
      }
    } catch (error) {
      if (signal?.aborted || !isTransient(error)) throw error;
      failingSince ??= performance.now();
      retry ??= new Backoff({ initialMs: 50, maxMs: 1_000 });
      const left = failingSince + options.reconnectTimeoutMs - performance.now();
      if (left <= 0) throw lostConnection(client, commandId, options.reconnectTimeoutMs, error);
      await sleep(Math.min(retry.next(), left), undefined, { signal });
      continue;
    }
    retry = undefined;
    let progressed = false;
    for (const event of page.items) {
      if (event.kind !== 'BashOutput' || event.commandId !== commandId) continue;
      if (event.order <= lastOrder) continue;
      lastOrder = event.order;
      progressed = true;
      options.onOutput?.(event);
      if (event.exitCode !== null) return { kind: 'exit', event };
    }
    if (page.nextPageId !== null) {
      pageId = page.nextPageId;
      continue;
    }
    if (progressed) interval.reset();
    const left = options.deadline - performance.now();
    if (left <= 0) return { kind: 'deadline' };
    await sleep(Math.min(interval.next(), left), undefined, { signal });
  }
}

function searchPage(
  { bashEventPageFromWire, bashEventSearchQueryToSearchParams }: WireSchemas,
  client: AgentServerClient,
  commandId: string,
  lastOrder: number,
  pageId: string | undefined,
  signal: AbortSignal | undefined,
) {
  const query = bashEventSearchQueryToSearchParams({
    commandIdEq: commandId,
    kindEq: 'BashOutput',
    sortOrder: 'TIMESTAMP',
    orderGt: lastOrder,
    pageId,
    limit: 100,
  });
  return client.json(
    { method: 'GET', path: AGENT_SERVER_ROUTES.searchBashEvents, query, signal },
    bashEventPageFromWire,
  );
}

/** Throws `CONNECTION_ERROR` when the server no longer knows the command (e.g. it restarted). */
async function assertCommandKnown(
  { bashEventFromWire }: WireSchemas,
  client: AgentServerClient,
  commandId: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  const request = { method: 'GET', path: bashEventPath(commandId), signal } as const;
  const reply = await client.call(request);
  if (reply.status === 404) {
    throw new WorkspaceError({
      code: 'CONNECTION_ERROR',
      message: `the agent-server at ${client.host} no longer knows command ${commandId} after the connection came back (did it restart without its state?)`,
      details: { host: client.host, commandId },
    });
  }
  if (reply.status < 200 || reply.status > 299) throw client.statusError(reply, request);
  client.parse(reply, request, bashEventFromWire);
}

/** Connection failures and 503 (server restarting) may pass; everything else is final. */
function isTransient(error: unknown): boolean {
  return (
    WorkspaceError.isInstance(error, 'CONNECTION_ERROR') ||
    (WorkspaceError.isInstance(error, 'SERVER_ERROR') && error.details.status === 503)
  );
}

function lostConnection(
  client: AgentServerClient,
  commandId: string,
  budgetMs: number,
  cause: unknown,
): WorkspaceError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new WorkspaceError({
    code: 'CONNECTION_ERROR',
    message: `lost the agent-server at ${client.host} while following command ${commandId} and it did not come back within ${budgetMs} ms: ${reason}`,
    cause,
    details: { host: client.host, commandId },
  });
}
