import type { RawResponse } from '@agent-workspace/agent-server/testing';

/** The body of a raw response as JSON, `undefined` when it is none. */
// biome-ignore lint/suspicious/noExplicitAny: tests read response bodies loosely
export function rawJson(response: RawResponse | undefined): any {
  try {
    return JSON.parse(response?.body.toString('utf8') ?? '');
  } catch {
    return undefined;
  }
}
