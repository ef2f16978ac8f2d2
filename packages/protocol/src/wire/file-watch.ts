/**
 * Our file-watch extension of the agent-server protocol: a websocket at
 * {@link FILE_WATCH_SOCKET_PATH} (`?path=&recursive=&max_queued_events=&max_events_per_second=`, first-frame auth as
 * our other sockets) watches a directory of the server's workspace and sends a `ready` frame
 * once watching has begun, then one frame per change (`create`, `write`, `remove`,
 * `overflow`), or one `error` frame before closing. A server that offers it lists this
 * capability in `/server_info`.
 */
export const FILE_WATCH_CAPABILITY = 'agent_workspace.file_watch_v1';

/** Websocket path of the file-watch channel. */
export const FILE_WATCH_SOCKET_PATH = '/sockets/watch';

/** Default of the events a watcher holds for a consumer that has not taken them yet. */
export const DEFAULT_MAX_QUEUED_FILE_EVENTS = 1024;

/** Largest queue of one watcher (`maxQueuedEvents`, `max_queued_events`). */
export const MAX_QUEUED_FILE_EVENTS = 65_536;

/** Default of the events a watcher hands its consumer per second (after a burst of as many). */
export const DEFAULT_MAX_FILE_EVENTS_PER_SECOND = 1000;

/** Largest rate of one watcher (`maxEventsPerSecond`, `max_events_per_second`). */
export const MAX_FILE_EVENTS_PER_SECOND = 100_000;

/** Most file-watch sockets one agent-server serves at once; more are closed with 1013. */
export const MAX_FILE_WATCH_SOCKETS = 32;
