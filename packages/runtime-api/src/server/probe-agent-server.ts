import { randomBytes } from 'node:crypto';
import {
  AgentServerClient,
  HttpServerClient,
  type HttpServerRequest,
  timeoutSignal,
} from '@agent-workspace/core/internal';
import { AGENT_SERVER_ROUTES, INIT_API_KEY_HEADER } from '@agent-workspace/protocol';

/** Largest `/server_info` answer read, in bytes; a larger one is a failed probe. */
export const MAX_SERVER_INFO_BYTES = 64 * 1024;

/** Options of the agent-server probes. */
export interface ProbeOptions {
  /** Longest the whole probe may take, in milliseconds. */
  timeoutMs: number;
  /** Aborts the probe (the server is closing). */
  signal?: AbortSignal | undefined;
}

/**
 * The key a probe sends: a session key (the protocol's session key header), a dormant
 * agent-server's init key (`X-Init-API-Key`), or none.
 */
export type ProbeKey = { session: string } | { init: string } | undefined;

/**
 * Runs `work` with a one-use client of the agent-server at `url` (core's `AgentServerClient`, or
 * its `HttpServerClient` for an init key) that sends `key`, under one signal bounding the whole
 * probe by `timeoutMs` and `signal`; the client is closed after. Its errors are core's
 * `WorkspaceError`s, which never hold the key.
 */
export async function withAgentServer<T>(
  url: string,
  key: ProbeKey,
  options: ProbeOptions,
  work: (client: HttpServerClient, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const limits = {
    requestTimeoutMs: options.timeoutMs,
    connectTimeoutMs: options.timeoutMs,
    maxConnections: 1,
  };
  let client: HttpServerClient;
  if (key !== undefined && 'init' in key) {
    const { origin, pathname } = new URL(url);
    client = new HttpServerClient({
      origin,
      basePath: pathname.replace(/\/+$/, ''),
      peer: 'the agent-server',
      key: { header: INIT_API_KEY_HEADER, value: key.init, name: 'init key', option: 'initKey' },
      ...limits,
    });
  } else {
    client = new AgentServerClient({ host: url, apiKey: key?.session, ...limits });
  }
  try {
    return await work(client, timeoutSignal(options));
  } finally {
    await client.close();
  }
}

/**
 * The status the agent-server at `url` answers `request` with (sent with `key`; the body is
 * discarded), or `undefined` when it does not answer in time. Never throws.
 */
export async function probeStatus(
  url: string,
  key: ProbeKey,
  request: Omit<HttpServerRequest, 'signal'>,
  options: ProbeOptions,
): Promise<number | undefined> {
  try {
    return await withAgentServer(url, key, options, async (client, signal) => {
      const response = await client.send({ ...request, signal });
      await response.body.dump();
      return response.statusCode;
    });
  } catch {
    return undefined;
  }
}

/**
 * True when the agent-server at `url` answers `GET /health` with 2xx within the timeout. No key
 * is sent: health is open on every agent-server.
 */
export async function probeHealth(url: string, options: ProbeOptions): Promise<boolean> {
  const request = { method: 'GET', path: AGENT_SERVER_ROUTES.health } as const;
  const status = await probeStatus(url, undefined, request, options);
  return status !== undefined && status >= 200 && status < 300;
}

/** The agent-server's own clock as `/server_info` reports it (whole seconds). */
export interface AgentServerClock {
  /** `uptime`: seconds since the agent-server started. */
  uptimeSeconds: number;
  /** `idle_time`: seconds since its last activity (a keyed bash, file, git, ... request). */
  idleTimeSeconds: number;
}

/**
 * `uptime` and `idle_time` of the agent-server at `url` from `GET /server_info`, asked with the
 * session's own key in `SESSION_API_KEY_HEADER` (the one hop that key is for; the request counts
 * as no activity). Throws when the probe fails, times out, or the answer is not a `/server_info`
 * (at most {@link MAX_SERVER_INFO_BYTES}); the error never holds the key.
 */
export async function fetchServerClock(
  url: string,
  sessionKey: string,
  options: ProbeOptions,
): Promise<AgentServerClock> {
  const info = await withAgentServer(
    url,
    { session: sessionKey },
    options,
    async (client, signal) => {
      const response = await client.send({
        method: 'GET',
        path: AGENT_SERVER_ROUTES.serverInfo,
        signal,
      });
      if (response.statusCode !== 200) {
        await response.body.dump();
        throw new Error(`/server_info answered ${response.statusCode}`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > MAX_SERVER_INFO_BYTES) {
          response.body.destroy();
          throw new Error(`/server_info answer is larger than ${MAX_SERVER_INFO_BYTES} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      try {
        return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
      } catch {
        throw new Error('/server_info answer is not JSON');
      }
    },
  );
  const { uptime, idle_time } = (info ?? {}) as { uptime?: unknown; idle_time?: unknown };
  return {
    uptimeSeconds: seconds('uptime', uptime),
    idleTimeSeconds: seconds('idle_time', idle_time),
  };
}

function seconds(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new Error(`/server_info answer has no valid ${field}`);
  }
  return value;
}

/**
 * What {@link recordActivity} got: `recorded` (a 200), `unanswered` (no answer in time, or a 5xx
 * from something in between: worth asking again) or `refused` (any other answer, such as a 401
 * for a key that is not this agent-server's: asking again cannot help).
 */
export type ActivityRecord = 'recorded' | 'refused' | 'unanswered';

/**
 * Makes the agent-server at `url` count activity now, so its `idle_time` restarts: a warm
 * sandbox idles from its start, and idle reaping must count a claimed one's idleness from its
 * claim. The lightest request that counts: `GET` git changes of a directory that does not exist
 * (answered `[]`, nothing runs, nothing is written). With the session's own key; never throws.
 */
export async function recordActivity(
  url: string,
  sessionKey: string,
  options: ProbeOptions,
): Promise<ActivityRecord> {
  const path = `.agent-workspace-claim-${randomBytes(8).toString('hex')}`;
  const request = { method: 'GET', path: AGENT_SERVER_ROUTES.gitChanges, query: { path } } as const;
  const status = await probeStatus(url, { session: sessionKey }, request, options);
  if (status === 200) return 'recorded';
  return status === undefined || status >= 500 ? 'unanswered' : 'refused';
}
