/**
 * Websocket close codes of the agent-server's sockets (as OpenHands):
 * - `authenticationFailed` (4001): the first frame or deprecated query key was not a valid key,
 *   or none came in time.
 * - `conversationNotFound` (4004): the events socket's conversation does not exist.
 * - `tryAgainLater` (1013): too many subscribers, or a subscriber so slow that events were
 *   dropped before they could be sent.
 */
export const SOCKET_CLOSE_CODES = {
  authenticationFailed: 4001,
  conversationNotFound: 4004,
  tryAgainLater: 1013,
} as const;
