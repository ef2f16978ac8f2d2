import { abortedError, WorkspaceError } from '@agent-workspace/core';
import { MAX_SECRET_VALUE_BYTES } from '@agent-workspace/protocol';

/** Longest wait for a `LookupSecret`'s whole answer (headers and body). */
export const LOOKUP_SECRET_TIMEOUT_MS = 10_000;

/** Options of {@link fetchLookupSecret}. */
export interface FetchLookupSecretOptions {
  /** The secret's name, for error messages. */
  name: string;
  url: string;
  /** Sent with the request; never logged nor put in an error. */
  headers: Readonly<Record<string, string>>;
  /** Default {@link LOOKUP_SECRET_TIMEOUT_MS}. */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * The value of a `LookupSecret`: the body of `GET url` with `headers`, as UTF-8 text (OpenHands
 * reads `response.text`). Redirects are not followed (as OpenHands' `httpx.get`): a 3xx is a
 * failure, so headers never travel to another place. A body over `MAX_SECRET_VALUE_BYTES` is a
 * failure (reading stops there). Errors name the secret and the URL's origin only (its path and
 * query may hold a token), never the headers.
 *
 * @throws WorkspaceError `CONNECTION_ERROR` (unreachable, timeout), `SERVER_ERROR` (a non-2xx
 * answer, a redirect), `PROTOCOL_ERROR` (a body too large); `ABORTED` when `signal` fires.
 */
export async function fetchLookupSecret(options: FetchLookupSecretOptions): Promise<string> {
  const { name, url, headers, signal } = options;
  const origin = originOf(url);
  const timeout = AbortSignal.timeout(options.timeoutMs ?? LOOKUP_SECRET_TIMEOUT_MS);
  const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
  const failure = (
    code: 'CONNECTION_ERROR' | 'SERVER_ERROR' | 'PROTOCOL_ERROR',
    reason: string,
  ): WorkspaceError =>
    new WorkspaceError({
      code,
      message: `secret ${name}: GET ${origin} ${reason}`,
      details: { secret: name },
    });
  try {
    const response = await fetch(url, {
      method: 'GET',
      headers: { ...headers },
      redirect: 'manual',
      signal: combined,
    });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw failure('SERVER_ERROR', `answered HTTP ${response.status}: redirects are not followed`);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw failure('SERVER_ERROR', `answered HTTP ${response.status}`);
    }
    const bytes = await readAtMost(response, MAX_SECRET_VALUE_BYTES);
    if (bytes === undefined) {
      throw failure('PROTOCOL_ERROR', `answered more than ${MAX_SECRET_VALUE_BYTES} bytes`);
    }
    return new TextDecoder().decode(bytes);
  } catch (error) {
    if (signal?.aborted) throw abortedError(signal);
    if (error instanceof WorkspaceError) throw error;
    if (timeout.aborted)
      throw failure(
        'CONNECTION_ERROR',
        `took longer than ${options.timeoutMs ?? LOOKUP_SECRET_TIMEOUT_MS} ms`,
      );
    throw failure('CONNECTION_ERROR', `failed: ${causeOf(error)}`);
  }
}

/** The body, or `undefined` once it passes `limit` bytes (the rest is not read). */
async function readAtMost(response: Response, limit: number): Promise<Uint8Array | undefined> {
  if (response.body === null) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}

/** The network reason (`ECONNREFUSED`, `bad port`, ...), without the URL or headers. */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  const message = typeof cause?.message === 'string' ? cause.message : '';
  if (message !== '' && !message.includes('://')) return message.slice(0, 200);
  return error instanceof Error ? error.name : 'unknown error';
}
