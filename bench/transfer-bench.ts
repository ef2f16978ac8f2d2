import { execFile, spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { peakRssOf, startAgentServerProcess } from './agent-server-process.js';
import { type Comparison, comparisonOf, summarise } from './bench-harness.js';

const SIZE_BYTES = 256 * 1024 * 1024;
const ROUNDS = 5;
const API_KEY = 'bench-session-key';
const here = path.dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);

interface ClientRun {
  uploadMs: number;
  downloadMs: number;
  peakRssBytes: number;
}

async function client(args: string[]): Promise<ClientRun> {
  const { stdout } = await run(
    process.execPath,
    [path.join(here, 'transfer-client.mjs'), ...args],
    {
      maxBuffer: 1024 * 1024,
    },
  );
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as ClientRun;
}

async function startRawServer(
  root: string,
): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [path.join(here, 'raw-file-server.mjs'), root], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout! }).once('line', resolve),
  );
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function sha256(file: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
const throughput = (ms: number) => SIZE_BYTES / 1024 / 1024 / (ms / 1000);

/** 256 MiB upload and download through the agent-server against raw loopback HTTP. */
export async function benchTransfer(): Promise<Comparison[]> {
  const root = await mkdtemp(path.join(tmpdir(), 'bench-transfer-'));
  try {
    const source = path.join(root, 'source.bin');
    await run('bash', ['-c', `head -c ${SIZE_BYTES} /dev/urandom > '${source}'`]);
    const expected = await sha256(source);
    const raw = await startRawServer(path.join(root));
    const rawRuns: ClientRun[] = [];
    const remoteRuns: ClientRun[] = [];
    let serverPeak = 0;
    let rawServerPeak = 0;
    try {
      await using server = await startAgentServerProcess([
        '--working-dir',
        root,
        '--session-api-key',
        API_KEY,
        '--max-upload-bytes',
        String(2 * SIZE_BYTES),
      ]);
      for (let round = 0; round < ROUNDS; round += 1) {
        const rawCopy = path.join(root, `raw-back-${round}.bin`);
        const remoteCopy = path.join(root, `remote-back-${round}.bin`);
        const remoteTarget = path.join(root, `remote-${round}.bin`);
        const runRaw = async () =>
          rawRuns.push(await client(['raw', raw.url, '', source, `raw-${round}.bin`, rawCopy]));
        const runRemote = async () =>
          remoteRuns.push(
            await client(['remote', server.url, API_KEY, source, remoteTarget, remoteCopy]),
          );
        // Alternate who goes first so page-cache write-back hits both alike.
        for (const step of round % 2 === 0 ? [runRaw, runRemote] : [runRemote, runRaw])
          await step();
        if ((await sha256(remoteCopy)) !== expected)
          throw new Error('remote round trip corrupted the file');
        for (const file of [
          rawCopy,
          remoteCopy,
          remoteTarget,
          path.join(root, `raw-${round}.bin`),
        ]) {
          await rm(file, { force: true });
        }
      }
      serverPeak = await server.peakRssBytes();
      rawServerPeak = await peakRssOf(raw.pid);
    } finally {
      await raw.stop();
    }
    const results: Comparison[] = [];
    for (const direction of ['upload', 'download'] as const) {
      const key = direction === 'upload' ? 'uploadMs' : 'downloadMs';
      const baseline = summarise(
        `raw loopback HTTP ${direction}`,
        rawRuns.map((r) => throughput(r[key])),
        'MiB/s',
      );
      const candidate = summarise(
        `agent-server ${direction}`,
        remoteRuns.map((r) => throughput(r[key])),
        'MiB/s',
      );
      results.push(
        comparisonOf(
          `256 MiB ${direction} through the agent-server (throughput, higher is better)`,
          baseline,
          candidate,
          {
            target: 'throughput ratio ≥ 0.7; peak RSS < 150 MB',
            notes: `peak RSS: agent-server ${mib(serverPeak)} MiB, RemoteWorkspace client ${mib(Math.max(...remoteRuns.map((r) => r.peakRssBytes)))} MiB (raw server ${mib(rawServerPeak)} MiB, raw client ${mib(Math.max(...rawRuns.map((r) => r.peakRssBytes)))} MiB); file ${mib((await stat(source)).size)} MiB`,
          },
        ),
      );
    }
    return results;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
