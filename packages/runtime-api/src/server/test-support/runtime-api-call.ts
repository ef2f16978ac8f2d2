import { timeoutSignal } from '@agent-workspace/core/internal';
import { RUNTIME_API_KEY_HEADER, SESSION_API_KEY_HEADER } from '@agent-workspace/protocol';
import { request } from 'undici';

/** An HTTP answer with its body read. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON; `undefined` when it is not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read response bodies loosely
  json: any;
}

/** Options of {@link call}. */
export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** Sent as `X-API-Key` when set. */
  apiKey?: string | undefined;
  /** Sent as JSON (objects) or as is (strings, buffers). */
  body?: unknown;
  headers?: Record<string, string>;
  /** Bound of the whole exchange; default 60 s (a `/start` creates a container). */
  timeoutMs?: number;
  /** Abandons the exchange (the client goes away). */
  signal?: AbortSignal;
}

/** One request to `base + path` with undici; never throws for an HTTP status. */
export async function call(base: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const raw =
    options.body === undefined || typeof options.body === 'string' || Buffer.isBuffer(options.body);
  const response = await request(`${base}${path}`, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.apiKey === undefined ? {} : { [RUNTIME_API_KEY_HEADER]: options.apiKey }),
      ...options.headers,
    },
    body: raw ? (options.body as string | Buffer | undefined) : JSON.stringify(options.body),
    signal: timeoutSignal({ timeoutMs, signal: options.signal }),
  });
  const text = await response.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, headers: response.headers, text, json };
}

/** Runs `command` on an agent-server with its session key (counts as activity there). */
export async function runOnAgentServer(url: string, key: string, command: string) {
  return call(url, '/api/bash/execute_bash_command', {
    body: { command, timeout: 30 },
    headers: { [SESSION_API_KEY_HEADER]: key },
  });
}

/** The `loc` of every issue of a 422 answer. */
export function issueLocs(answer: Answer): unknown[] {
  return Array.isArray(answer.json?.detail)
    ? answer.json.detail.map((issue: { loc: unknown }) => issue.loc)
    : [];
}

/** A `/start` body of `image` for `sessionId` that a warm pool of `image` serves (its defaults). */
export function pooledStartBody(image: string, sessionId: string) {
  return {
    image,
    session_id: sessionId,
    working_dir: '/workspace',
    environment: {},
    resource_factor: 1,
  };
}
