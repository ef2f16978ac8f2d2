import { connect } from 'node:net';

/** Options of {@link probeTcp}. */
export interface ProbeTcpOptions {
  /** Address to dial (IPv6 with or without brackets). */
  host: string;
  port: number;
  /** Longest the connection may take. */
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/** True when a TCP connection to `host:port` opens within `timeoutMs`; the connection is closed. */
export function probeTcp({ host, port, timeoutMs, signal }: ProbeTcpOptions): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: host.replace(/^\[(.*)\]$/, '$1'), port, signal });
    const done = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
