import type { Readable } from 'node:stream';
import { SYSTEM_PATH } from '../internal/process/find-executable.js';
import type { SpawnedChild } from '../internal/process/spawn-child.js';
import type { CommandSandbox } from '../workspace/command-sandbox.js';
import { EGRESS_MAX_CONNECTIONS } from './egress-policy.js';
import { spawnUntilReady } from './spawn-until-ready.js';

/** Longest wait for the bridge to listen. */
export const EGRESS_BRIDGE_START_TIMEOUT_MS = 10_000;

/** Kept bytes of the bridge's standard error, for error messages. */
const STDERR_TAIL_BYTES = 4 * 1024;

/**
 * The bridge, run with `node -e` inside the sandbox (CommonJS; `process.argv[1]` is the proxy's
 * socket path): it listens on 127.0.0.1 of the sandbox's network namespace, prints its port
 * and pipes each connection to the unix socket, half-closes included.
 */
const BRIDGE_SCRIPT = `
const net = require('node:net');
const socketPath = process.argv[1];
const server = net.createServer({ allowHalfOpen: true }, (client) => {
  const upstream = net.connect({ path: socketPath, allowHalfOpen: true });
  client.pipe(upstream);
  upstream.pipe(client);
  const fail = () => { client.destroy(); upstream.destroy(); };
  client.on('error', fail);
  upstream.on('error', fail);
  client.on('close', () => upstream.end());
  upstream.on('close', () => client.end());
});
server.maxConnections = ${EGRESS_MAX_CONNECTIONS};
server.listen(0, '127.0.0.1', () => {
  // Once listening, a failed accept (EMFILE) drops that connection, not the bridge.
  server.on('error', () => {});
  process.stdout.write(server.address().port + '\\n');
});
`;

/** Input of {@link startEgressBridge}. */
export interface StartEgressBridgeOptions {
  sandbox: CommandSandbox;
  /** Absolute path of the node binary, visible at the same path inside the sandbox. */
  node: string;
  /** The egress proxy's unix socket, visible at the same path inside the sandbox. */
  socketPath: string;
  signal?: AbortSignal | undefined;
}

/** A running bridge. */
export interface EgressBridge {
  /** Its port on 127.0.0.1 inside the sandbox. */
  readonly port: number;
  /** The host-side process that entered the sandbox (its process group leader). */
  readonly process: SpawnedChild;
}

/**
 * Starts the bridge between a sandbox's own loopback and the egress proxy's unix socket, and
 * waits (at most {@link EGRESS_BRIDGE_START_TIMEOUT_MS}) until it listens. The bridge lives in the
 * sandbox's pid namespace, so it dies with the sandbox; its host side is unref'd.
 *
 * @throws WorkspaceError `SPAWN_ERROR` (with its standard error) when it exits or is too slow,
 * `SANDBOX_EXITED` when the sandbox is gone, `ABORTED` when `signal` fires. It is killed then.
 */
export async function startEgressBridge(options: StartEgressBridgeOptions): Promise<EgressBridge> {
  const bridge = await spawnUntilReady({
    spawn: {
      file: options.node,
      args: ['-e', BRIDGE_SCRIPT, options.socketPath],
      cwd: options.sandbox.workingDir,
      env: { PATH: SYSTEM_PATH },
      sandbox: options.sandbox,
    },
    ready: (child) => readPort(child.stdout),
    timeoutMs: EGRESS_BRIDGE_START_TIMEOUT_MS,
    stderrTailBytes: STDERR_TAIL_BYTES,
    words: { subject: "the sandbox's egress bridge", notReady: 'not listening', exited: 'it' },
    signal: options.signal,
  });
  return { port: bridge.value, process: bridge.process };
}

/** The port on the first line of `stream`; never settles without one. */
function readPort(stream: Readable | null): Promise<number> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const line = /^(\d{1,5})\n/.exec(text);
      if (!line) return;
      stream?.off('data', onData);
      resolve(Number(line[1]));
    };
    stream?.on('data', onData);
  });
}
