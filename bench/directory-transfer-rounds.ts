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

/** The baseline: `tar -c | curl -T -` up, `curl | tar -x` down, timed around each pipeline. */
export async function rawRound(
  url: string,
  source: string,
  remote: string,
  back: string,
): Promise<Timings> {
  const target = `${url}/?dir=${encodeURIComponent(remote)}`;
  const upload = performance.now();
  await run('bash', [
    '-o',
    'pipefail',
    '-c',
    `tar -c -C "$1" . | curl -sSf -T - "$2" >/dev/null`,
    'bash',
    source,
    target,
  ]);
  const uploadMs = performance.now() - upload;
  await mkdir(back, { recursive: true });
  const download = performance.now();
  await run('bash', [
    '-o',
    'pipefail',
    '-c',
    `curl -sSf "$2" | tar -x -C "$1"`,
    'bash',
    back,
    target,
  ]);
  return { uploadMs, downloadMs: performance.now() - download, peakRssBytes: 0 };
}

/**
 * The agent-server's share: the baseline's pipelines (`tar -c | curl`, `curl | tar -x`) against
 * the agent-server's directory archive instead of the raw tar server.
 */
export async function serverRound(
  url: string,
  source: string,
  remote: string,
  back: string,
): Promise<Timings> {
  const archive = (dir: string) =>
    `${url}${AGENT_SERVER_ROUTES.directoryArchive}?path=${encodeURIComponent(dir)}`;
  const key = `${SESSION_API_KEY_HEADER}: ${API_KEY}`;
  const upload = performance.now();
  await run('bash', [
    '-o',
    'pipefail',
    '-c',
    `tar -c -C "$1" . | curl -sSf -X POST -H "$3" -H "content-type: $4" -T - "$2" >/dev/null`,
    'bash',
    source,
    archive(remote),
    key,
    DIRECTORY_ARCHIVE_MEDIA_TYPE,
  ]);
  const uploadMs = performance.now() - upload;
  await mkdir(back, { recursive: true });
  const download = performance.now();
  await run('bash', [
    '-o',
    'pipefail',
    '-c',
    `curl -sSf -H "$3" "$2" | tar -x -C "$1"`,
    'bash',
    back,
    archive(remote),
    key,
  ]);
  return { uploadMs, downloadMs: performance.now() - download, peakRssBytes: 0 };
}

/** A fresh Node process handing the agent-server's archive to `tar -x` (node-tar-client.mjs). */
export async function nodeTarDownload(url: string, remote: string, back: string): Promise<number> {
  const { stdout } = await run(process.execPath, [
    path.join(here, 'node-tar-client.mjs'),
    url,
    API_KEY,
    remote,
    back,
  ]);
  return (JSON.parse(stdout.trim()) as { downloadMs: number }).downloadMs;
}

/** Our client in its own process (see directory-transfer-client.mjs). */
export async function remoteRound(
  url: string,
  source: string,
  remote: string,
  back: string,
): Promise<ClientTimings> {
  const { stdout } = await run(process.execPath, [
    path.join(here, 'directory-transfer-client.mjs'),
    url,
    API_KEY,
    source,
    remote,
    back,
  ]);
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as ClientTimings;
}
