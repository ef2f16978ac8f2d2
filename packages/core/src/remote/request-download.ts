import type { Dispatcher } from 'undici';
import type { AgentServerClient, AgentServerRequest } from './agent-server-client.js';
import { errorDetail } from './error-detail.js';
import { isFileFailureStatus } from './is-file-failure-status.js';
import type { StreamedResponse } from './send-streamed-request.js';

/** Options of {@link requestDownload}. */
export interface RequestDownloadOptions<R> {
  client: AgentServerClient;
  /** The `GET` whose body is the download. */
  request: AgentServerRequest;
  /** The server path, for messages. */
  sourcePath: string;
  /** What a 404 means, e.g. `file not found in the workspace`. */
  notFound: string;
  /**
   * Sends `request`; default `client.send(request)` (undici). `client.sendStreamed` gives Node's
   * own response, cheaper for a large body that is written to a file.
   */
  send?: (() => Promise<R>) | undefined;
}

/**
 * Sends a download `GET`: the response with its body unread on 2xx; a refusal naming the file
 * (404, 400, ...) as `{ failure }`, a result for the caller; other statuses throw (auth,
 * server errors).
 */
export async function requestDownload<
  R extends Dispatcher.ResponseData | StreamedResponse = Dispatcher.ResponseData,
>({
  client,
  request,
  sourcePath,
  notFound,
  send,
}: RequestDownloadOptions<R>): Promise<{ response: R; failure?: undefined } | { failure: string }> {
  const response = send ? await send() : ((await client.send(request)) as R);
  if (response.statusCode >= 200 && response.statusCode <= 299) return { response };
  const reply = await client.read(response, request);
  const detail = await errorDetail(reply);
  if (isFileFailureStatus(reply.status, detail)) {
    const reason = reply.status === 404 ? notFound : detail;
    return { failure: `cannot download ${sourcePath}: ${reason} (HTTP ${reply.status})` };
  }
  throw client.statusError(reply, request);
}
