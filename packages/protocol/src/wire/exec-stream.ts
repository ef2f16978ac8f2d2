/**
 * Our streaming-exec extension of the agent-server protocol: one websocket at
 * {@link EXEC_STREAM_PATH} runs any number of commands, pushing output as it is produced, taking
 * stdin and signals, and resuming after a dropped connection from the last `order` received.
 * Output and exit frames are views of the same `BashOutput` events `/api/bash` serves, so `order`
 * is the one counter of a command's events. A server that offers it lists this capability in
 * `/server_info`.
 */
export const EXEC_STREAM_CAPABILITY = 'agent_workspace.exec_stream_v1';

/** Websocket path of the streaming-exec channel. */
export const EXEC_STREAM_PATH = '/sockets/exec';
