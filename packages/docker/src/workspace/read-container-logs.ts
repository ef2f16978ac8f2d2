import { PassThrough, Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type Docker from 'dockerode';

/** What logs are read from: a container, or a Swarm service (`docker service logs`). */
export interface LogSource {
  logs(
    options: Docker.ContainerLogsOptions & { follow?: false },
  ): Promise<Buffer | NodeJS.ReadableStream>;
}

/** Options of {@link readContainerLogs}. */
export interface ReadContainerLogsOptions {
  docker: Docker;
  /** A container, or a Swarm service (its tasks' output, as `docker service logs`). */
  container: LogSource;
  /** How many of the last lines. */
  tailLines: number;
  signal?: AbortSignal | undefined;
}

/** The last output lines of a container (or service), stdout and stderr interleaved as written. */
export async function readContainerLogs({
  docker,
  container,
  tailLines,
  signal,
}: ReadContainerLogsOptions): Promise<string> {
  const raw = await container.logs({
    stdout: true,
    stderr: true,
    follow: false,
    tail: tailLines,
    abortSignal: signal,
  });
  // Without a TTY the engine multiplexes both streams; dockerode splits them.
  const output = new PassThrough();
  const chunks: Buffer[] = [];
  output.on('data', (chunk: Buffer) => chunks.push(chunk));
  const input = Buffer.isBuffer(raw) ? Readable.from([raw]) : (raw as Readable);
  docker.modem.demuxStream(input, output, output);
  await finished(input);
  return Buffer.concat(chunks).toString('utf8');
}
