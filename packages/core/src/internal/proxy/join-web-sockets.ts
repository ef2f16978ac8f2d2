import WebSocket from 'ws';

/** Client frames kept while the other side connects; more closes the client (1013). */
export const MAX_PENDING_FRAMES = 256;

/**
 * Joins two websockets frame for frame (text stays text, binary stays binary) and close for
 * close: `client` is already open, `upstream` may still be connecting (frames the client sends
 * meanwhile wait, at most {@link MAX_PENDING_FRAMES}). A failure of `upstream` closes the
 * client with 1011 naming `what`.
 */
export function joinWebSockets(client: WebSocket, upstream: WebSocket, what: string): void {
  const pending: [WebSocket.RawData, boolean][] = [];
  client.on('message', (data, isBinary) => {
    if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary: isBinary });
    else if (pending.length < MAX_PENDING_FRAMES) pending.push([data, isBinary]);
    else client.close(1013, `${what} is not ready`);
  });
  upstream.on('open', () => {
    for (const [data, isBinary] of pending.splice(0)) upstream.send(data, { binary: isBinary });
  });
  upstream.on('message', (data, isBinary) => {
    if (client.readyState === WebSocket.OPEN) client.send(data, { binary: isBinary });
  });
  // 1005 (no code) and 1006 (dropped) cannot be sent: a plain close stands for them.
  const sendable = (code: number) => (code === 1005 || code === 1006 ? 1000 : code);
  upstream.on('close', (code, reason) => client.close(sendable(code), reason));
  upstream.on('error', (error) => client.close(1011, `${what}: ${error.message}`.slice(0, 120)));
  client.on('close', (code, reason) => {
    if (upstream.readyState === WebSocket.CONNECTING) upstream.terminate();
    else upstream.close(sendable(code), reason);
  });
  client.on('error', () => upstream.terminate());
}
