import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  AGENT_SERVER_ROUTES,
  DIRECTORY_ARCHIVE_MEDIA_TYPE,
  SESSION_API_KEY_HEADER,
} from '@agent-workspace/protocol/constants';

/** The session key of the directory benches' agent-servers. */
export const API_KEY = 'bench-session-key';
const here = path.dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);

/** One side's round trip: upload and download wall times, and its peak RSS when measured. */
export interface Timings {
  uploadMs: number;
  downloadMs: number;
  peakRssBytes: number;
}

/** Our client's timings: its first transfers, then the same again in the same process. */
export interface ClientTimings extends Timings {
  warmUploadMs: number;
  warmDownloadMs: number;
}

/**
 * `tar -c <source> | curl <upload…>`, then `curl <download…> | tar -x -C <back>`, each pipeline
 * timed on its own.
 */
async function tarCurlRound(
  source: string,
  back: string,
  curl: { upload: string[]; download: string[] },
): Promise<Timings> {
  const upload = performance.now();
  await run('bash', [
    '-o',
    'pipefail',
    '-c',
    'dir=$1; shift; tar -c -C "$dir" . | curl -sSf "$@" >/dev/null',
    'bash',
    source,
    ...curl.upload,
  ]);
  const uploadMs = performance.now() - upload;
  await mkdir(back, { recursive: true });
  const download = performance.now();
  await run('bash', [
    '-o',
    'pipefail',
    '-c',
    'dir=$1; shift; curl -sSf "$@" | tar -x -C "$dir"',
    'bash',
    back,
    ...curl.download,
  ]);
  return { uploadMs, downloadMs: performance.now() - download, peakRssBytes: 0 };
}

/** The baseline: `tar -c | curl -T -` up, `curl | tar -x` down, against the raw tar server. */
export function rawRound(url: string, source: string, remote: string, back: string) {
  const target = `${url}/?dir=${encodeURIComponent(remote)}`;
  return tarCurlRound(source, back, { upload: ['-T', '-', target], download: [target] });
}

/**
 * The agent-server's share: the baseline's pipelines against the agent-server's directory
 * archive instead of the raw tar server.
 */
export function serverRound(url: string, source: string, remote: string, back: string) {
  const target = `${url}${AGENT_SERVER_ROUTES.directoryArchive}?path=${encodeURIComponent(remote)}`;
  const key = ['-H', `${SESSION_API_KEY_HEADER}: ${API_KEY}`];
  const media = ['-H', `content-type: ${DIRECTORY_ARCHIVE_MEDIA_TYPE}`];
  return tarCurlRound(source, back, {
    upload: ['-X', 'POST', ...key, ...media, '-T', '-', target],
    download: [...key, target],
  });
}

/** Runs a bench client script in a fresh Node process; its last line of output, parsed. */
async function runClient<T>(script: string, args: string[]): Promise<T> {
  const { stdout } = await run(process.execPath, [path.join(here, script), ...args]);
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as T;
}

/** A fresh Node process handing the agent-server's archive to `tar -x` (node-tar-client.mjs). */
export async function nodeTarDownload(url: string, remote: string, back: string): Promise<number> {
  const timing = await runClient<{ downloadMs: number }>('node-tar-client.mjs', [
    url,
    API_KEY,
    remote,
    back,
  ]);
  return timing.downloadMs;
}

/** Our client in its own process (see directory-transfer-client.mjs). */
export function remoteRound(
  url: string,
  source: string,
  remote: string,
  back: string,
): Promise<ClientTimings> {
  return runClient('directory-transfer-client.mjs', [url, API_KEY, source, remote, back]);
}
