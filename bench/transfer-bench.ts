import { execFile, spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { peakRssOf, startAgentServerProcess } from './agent-server-process.js';
import {
  bestOf,
  type Comparison,
  type Rounds,
  roundsComparison,
  sampleInProcess,
} from './bench-harness.js';

const SIZE_BYTES = 256 * 1024 * 1024;
const ROUNDS = 5;
const API_KEY = 'bench-session-key';
const here = path.dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);

/** What one transfer-client.mjs process reports. */
interface ClientSample {
  /** The 256 MiB transfer, after the client's first use. */
  ms: number;
  /** The client's first use: a 1-byte transfer (a RemoteWorkspace loads its transport then). */
  firstUseMs: number;
  /** Peak RSS of the whole client process, first use included. */
  peakRssBytes: number;
}

type Direction = 'upload' | 'download';

async function startRawServer(
  root: string,
): Promise<{ url: string; pid: number } & AsyncDisposable> {
  const child = spawn(process.execPath, [path.join(here, 'raw-file-server.mjs'), root], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout! }).once('line', resolve),
  );
  return {
    url,
    pid: child.pid!,
    async [Symbol.asyncDispose]() {
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

const mb = (bytes: number) => (bytes / 1e6).toFixed(0);
const peak = (samples: ClientSample[]) => Math.max(...samples.map((s) => s.peakRssBytes));
const throughput = (sample: ClientSample) => SIZE_BYTES / 1024 / 1024 / (sample.ms / 1000);
/** Throughput counting the client's first use in the time, as a one-off transfer sees it. */
const coldThroughput = (sample: ClientSample) =>
  SIZE_BYTES / 1024 / 1024 / ((sample.ms + sample.firstUseMs) / 1000);
/** candidate / baseline of each round. */
const perRound = (rounds: Rounds<ClientSample>, of: (sample: ClientSample) => number) =>
  rounds.candidate.map((sample, index) => of(sample) / of(rounds.baseline[index]!));
const ratios = (values: number[]) => values.map((value) => `${value.toFixed(2)}x`).join(' ');

/**
 * One direction: a fresh agent-server and raw server (so each one's peak RSS is this
 * direction's), then best-of-{@link ROUNDS} interleaved rounds, each client in its own process.
 * Two comparisons: throughput (the goal holds in every round, so the worst round's ratio is
 * given) and the client's peak RSS.
 */
async function benchDirection(root: string, direction: Direction): Promise<Comparison[]> {
  const source = path.join(root, 'source.bin');
  const expected = await sha256(source);
  await using raw = await startRawServer(root);
  await using server = await startAgentServerProcess([
    '--working-dir',
    root,
    '--session-api-key',
    API_KEY,
    '--max-upload-bytes',
    String(2 * SIZE_BYTES),
  ]);
  const sample = async (side: 'raw' | 'remote', round: number): Promise<ClientSample> => {
    const copy = path.join(root, `${direction}-${side}-${round}.bin`);
    // Uploads send source.bin to `copy`; downloads fetch source.bin into `copy`.
    const [local, remote] = direction === 'upload' ? [source, copy] : [copy, source];
    const url = side === 'raw' ? raw.url : server.url;
    const result = await sampleInProcess<ClientSample>(path.join(here, 'transfer-client.mjs'), [
      side,
      direction,
      url,
      API_KEY,
      local,
      remote,
      path.join(root, 'tiny.bin'),
    ]);
    if (side === 'remote' && (await sha256(copy)) !== expected) {
      throw new Error(`the agent-server ${direction} corrupted the file`);
    }
    await rm(copy, { force: true });
    return result;
  };
  const rounds = await bestOf({
    rounds: ROUNDS,
    warmup: 1,
    baseline: (round) => sample('raw', round),
    candidate: (round) => sample('remote', round),
  });
  const serverPeak = await server.peakRssBytes();
  const rawServerPeak = await peakRssOf(raw.pid);
  const roundRatios = perRound(rounds, throughput);
  const cold = perRound(rounds, coldThroughput);
  const firstUse = (samples: ClientSample[]) =>
    Math.min(...samples.map((sample) => sample.firstUseMs)).toFixed(0);
  const speed = roundsComparison({
    scenario: `256 MiB ${direction} through the agent-server (throughput, higher is better)`,
    baseline: {
      name: `raw loopback HTTP ${direction}`,
      samples: rounds.baseline.map(throughput),
    },
    candidate: {
      name: `agent-server ${direction}`,
      samples: rounds.candidate.map(throughput),
    },
    unit: 'MiB/s',
    higherIsBetter: true,
    target: '≥ 0.9x in every round',
    notes: [
      `worst round ${Math.min(...roundRatios).toFixed(2)}x (rounds ${ratios(roundRatios)})`,
      `counting the client's first use (a 1-byte ${direction} first: RemoteWorkspace ${firstUse(rounds.candidate)} ms, raw ${firstUse(rounds.baseline)} ms at best): worst round ${Math.min(...cold).toFixed(2)}x`,
      `server peak RSS: agent-server ${mb(serverPeak)} MB, raw server ${mb(rawServerPeak)} MB`,
    ].join('; '),
  });
  const rss = (samples: ClientSample[]) => samples.map((sample) => sample.peakRssBytes / 1e6);
  const rssRounds = perRound(rounds, (sample) => sample.peakRssBytes);
  const memory = roundsComparison({
    scenario: `256 MiB ${direction}, client peak RSS (lower is better)`,
    baseline: { name: `raw node:http ${direction} client`, samples: rss(rounds.baseline) },
    candidate: { name: `RemoteWorkspace ${direction} client`, samples: rss(rounds.candidate) },
    unit: 'MB',
    higherIsBetter: false,
    ...(direction === 'download' && { target: '≤ 1.15x raw client' }),
    notes: `highest peaks ${mb(peak(rounds.candidate))} vs ${mb(peak(rounds.baseline))} MB (${(peak(rounds.candidate) / peak(rounds.baseline)).toFixed(2)}x), worst round ${Math.max(...rssRounds).toFixed(2)}x; both processes import @agent-workspace/core`,
  });
  return [speed, memory];
}

/**
 * 256 MiB upload and download through the agent-server (RemoteWorkspace client) against raw
 * loopback HTTP (node:http server and client), each side's server in its own process and each
 * client in a fresh process per sample.
 */
export async function benchTransfer(): Promise<Comparison[]> {
  const root = await mkdtemp(path.join(tmpdir(), 'bench-transfer-'));
  try {
    await run('bash', [
      '-c',
      `head -c ${SIZE_BYTES} /dev/urandom > '${path.join(root, 'source.bin')}'`,
    ]);
    await writeFile(path.join(root, 'tiny.bin'), 'x');
    return [...(await benchDirection(root, 'upload')), ...(await benchDirection(root, 'download'))];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
