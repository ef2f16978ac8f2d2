/**
 * How much longer than a command's timeout the client waits for the server to report it; the
 * server kills the tree at the timeout (OpenHands escalates SIGTERM → SIGKILL over 2 s).
 */
export const CLIENT_TIMEOUT_GRACE_MS = 5_000;
