import { randomBytes } from 'node:crypto';
import { timeoutSignal } from '@agent-workspace/core/internal';
import { AGENT_SERVER_ROUTES, SESSION_API_KEY_HEADER } from '@agent-workspace/protocol';
import { type Dispatcher, request } from 'undici';

/** Largest `/server_info` answer read, in bytes; a larger one is a failed probe. */
export const MAX_SERVER_INFO_BYTES = 64 * 1024;

/** Options of the agent-server probes. */
export interface ProbeOptions {
  /** Connection pool of the server (closed with it). */
  dispatcher: Dispatcher;
  /** Longest the whole probe may take, in milliseconds. */
  timeoutMs: number;
  /** Aborts the probe (the server is closing). */
  signal?: AbortSignal | undefined;
}

/** `path` under the base URL `url` (which may have a path of its own). */
function joinUrl(url: string, path: string): string {
  return `${url.replace(/\/+$/, '')}${path}`;
}

/**
 * True when the agent-server at `url` answers `GET /health` with 2xx within the timeout. No key
 * is sent: health is open on every agent-server.
 */
export async function probeHealth(url: string, options: ProbeOptions): Promise<boolean> {
  try {
    const response = await request(joinUrl(url, AGENT_SERVER_ROUTES.health), {
      dispatcher: options.dispatcher,
      signal: timeoutSignal(options),
    });
    await response.body.dump();
    return response.statusCode >= 200 && response.statusCode < 300;
  } catch {
    return false;
  }
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
  const signal = timeoutSignal(options);
  const response = await request(joinUrl(url, AGENT_SERVER_ROUTES.serverInfo), {
    dispatcher: options.dispatcher,
    headers: { [SESSION_API_KEY_HEADER]: sessionKey },
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
  let info: unknown;
  try {
    info = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new Error('/server_info answer is not JSON');
  }
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
 * Makes the agent-server at `url` count activity now, so its `idle_time` restarts: a warm
 * sandbox idles from its start, and idle reaping must count a claimed one's idleness from its
 * claim. The lightest request that counts: `GET` git changes of a directory that does not exist
 * (answered `[]`, nothing runs, nothing is written). With the session's own key; resolves
 * `false` when the agent-server does not answer 200 in time, and never throws.
 */
export async function recordActivity(
  url: string,
  sessionKey: string,
  options: ProbeOptions,
): Promise<boolean> {
  const path = `.agent-workspace-claim-${randomBytes(8).toString('hex')}`;
  try {
    const response = await request(joinUrl(url, AGENT_SERVER_ROUTES.gitChanges), {
      dispatcher: options.dispatcher,
      headers: { [SESSION_API_KEY_HEADER]: sessionKey },
      query: { path },
      signal: timeoutSignal(options),
    });
    await response.body.dump();
    return response.statusCode === 200;
  } catch {
    return false;
  }
}
