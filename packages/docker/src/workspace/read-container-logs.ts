import { PassThrough, Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type Docker from 'dockerode';

/** Options of {@link readContainerLogs}. */
export interface ReadContainerLogsOptions {
  docker: Docker;
  container: Docker.Container;
  /** How many of the last lines. */
  tailLines: number;
  signal?: AbortSignal | undefined;
}

/** The container's last output lines, stdout and stderr interleaved as written. */
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
  const input = Readable.from([raw]);
  docker.modem.demuxStream(input, output, output);
  await finished(input);
  return Buffer.concat(chunks).toString('utf8');
}
