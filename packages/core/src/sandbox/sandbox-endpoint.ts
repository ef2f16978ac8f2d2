/** How to reach the agent-server of a started sandbox; returned by `startSandbox()`. */
export interface SandboxEndpoint {
  /** Base URL of the agent-server as this process reaches it, e.g. `http://127.0.0.1:32768`. */
  host: string;
  /** Session API key the agent-server accepts (sent in the session key header). */
  apiKey?: string | undefined;
  /**
   * Settles when the sandbox says its agent-server listens (e.g. the server's listening line
   * in the container's log stream): the start then probes at once instead of at its next poll.
   * Optional; polling `/health` is the fallback and the proof.
   */
  ready?: Promise<unknown> | undefined;
}
