import {
  AGENT_SERVER_ROUTES,
  type ExecClientFrameWire,
  SESSION_API_KEY_HEADER,
} from '@agent-workspace/protocol';
import WebSocket from 'ws';

/** Options of {@link primeServer}. */
export interface PrimeServerOptions {
  /** The server's base URL, `http://127.0.0.1:<port>`. */
  url: string;
  /** A session key the server accepts. */
  apiKey: string;
  /** Longest the whole round may take. @default 10 000 ms */
  timeoutMs?: number | undefined;
}

/** The command run over the exec socket: it prints, so output frames are sent too. */
const PRIMING_COMMAND = 'echo primed';

/**
 * Does, against a server of this process, what a client does first with a fresh container:
 * `/health`, `/server_info`, and one command over the exec socket, to its exit frame. The
 * bundle's launcher runs it before it writes the V8 code cache (the image build's step), so the
 * cache also holds the code those requests run, which a container's first command would
 * otherwise compile. Rejects, naming the step, when any of it fails.
 */
export async function primeServer({
  url,
  apiKey,
  timeoutMs = 10_000,
}: PrimeServerOptions): Promise<void> {
  const signal = AbortSignal.timeout(timeoutMs);
  const headers = { [SESSION_API_KEY_HEADER]: apiKey };
  for (const route of [AGENT_SERVER_ROUTES.health, AGENT_SERVER_ROUTES.serverInfo]) {
    const response = await fetch(`${url}${route}`, { headers, signal }).catch((error: Error) => {
      throw new Error(`priming: GET ${route}: ${error.message}`, { cause: error });
    });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`priming: GET ${route} answered HTTP ${response.status}`);
  }
  await runOverExecSocket(`${url.replace(/^http/, 'ws')}${AGENT_SERVER_ROUTES.execSocket}`, {
    apiKey,
    signal,
  });
}

/** Runs {@link PRIMING_COMMAND} over the exec socket and resolves at its `exit` frame. */
function runOverExecSocket(
  socketUrl: string,
  { apiKey, signal }: { apiKey: string; signal: AbortSignal },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(socketUrl, { perMessageDeflate: false });
    const fail = (reason: string) => {
      socket.terminate();
      reject(new Error(`priming: ${AGENT_SERVER_ROUTES.execSocket}: ${reason}`));
    };
    const onAbort = () => fail('no exit frame in time');
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('error', (error) => fail(error.message));
    socket.once('close', (code) => fail(`closed (${code}) before the exit frame`));
    socket.once('open', () => {
      const start: ExecClientFrameWire = { type: 'start', command: PRIMING_COMMAND };
      socket.send(JSON.stringify({ type: 'auth', session_api_key: apiKey }));
      socket.send(JSON.stringify(start));
    });
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { type?: string; exit_code?: number };
      if (frame.type === 'error') return fail(`error frame ${String(data)}`);
      if (frame.type !== 'exit') return;
      signal.removeEventListener('abort', onAbort);
      socket.removeAllListeners('close');
      socket.once('close', () => resolve());
      if (frame.exit_code !== 0) return fail(`'${PRIMING_COMMAND}' exited ${frame.exit_code}`);
      socket.close();
    });
  });
}
