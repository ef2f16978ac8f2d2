/**
 * The `event` field of the JSON log line the agent-server writes to stdout once it listens.
 * A launcher that can read the sandbox's output (Docker's log stream) waits for this line
 * instead of polling `GET /health`, then confirms with one probe.
 */
export const AGENT_SERVER_LISTENING_EVENT = 'agent_server.listening';
