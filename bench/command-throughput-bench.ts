import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BubblewrapSandbox } from '@agent-workspace/core';
import { startAgentServerProcess } from './agent-server-process.js';
import { bestOf, type Comparison, roundsComparison } from './bench-harness.js';

const API_KEY = 'bench-session-key';
/** Commands per round and side. */
const COMMANDS = 2000;
const ROUNDS = 5;
const CONCURRENCIES = [10, 100] as const;
const EXECUTE_PATH = '/api/bash/execute_bash_command';

/** The part of undici's `Pool` this bench uses (undici is a dependency of the packages, not of bench/). */
interface UndiciPool {
  request(options: {
    path: string;
    method: 'POST';
    headers: Record<string, string>;
    body: string;
  }): Promise<{ statusCode: number; body: { text(): Promise<string> } }>;
  close(): Promise<void>;
}
const { Pool } = createRequire(new URL('../packages/agent-server/package.json', import.meta.url))(
  'undici',
) as { Pool: new (url: string, options: { connections: number }) => UndiciPool };

/** One round of one side: commands per second and the 99th percentile latency. */
interface Throughput {
  perSecond: number;
  p99Ms: number;
}

/**
 * Runs `total` commands through `concurrency` workers that each start the next one as soon as
 * theirs ended; returns the rate over the whole wall time and the p99 of the commands.
 */
async function measure(
  total: number,
  concurrency: number,
  run: () => Promise<void>,
): Promise<Throughput> {
  const latencies: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < total) {
      next++;
      const start = performance.now();
      await run();
      latencies.push(performance.now() - start);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const wallMs = performance.now() - start;
  latencies.sort((a, b) => a - b);
  const p99Ms = latencies[Math.ceil(0.99 * latencies.length) - 1] ?? Number.NaN;
  return { perSecond: (total * 1000) / wallMs, p99Ms };
}

/** `spawn('bash', ['-c', 'true'])` to its exit. */
function rawTrue(cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', 'true'], { cwd, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`bash exited with ${code}`)),
    );
  });
}

/** `POST /api/bash/execute_bash_command {"command":"true"}` on a keep-alive connection. */
async function executeTrue(pool: UndiciPool): Promise<void> {
  const response = await pool.request({
    path: EXECUTE_PATH,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-session-api-key': API_KEY },
    body: '{"command":"true"}',
  });
  const text = await response.body.text();
  if (response.statusCode !== 200 || (JSON.parse(text) as { exit_code?: number }).exit_code !== 0) {
    throw new Error(`execute_bash_command answered ${response.statusCode}: ${text}`);
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
};

/**
 * Commands per second through a real agent-server process (`execute_bash_command true` from 10
 * and 100 concurrent keep-alive clients) against raw `spawn('bash', ['-c', 'true'])` at the same
 * concurrency, interleaved rounds; the default server and, where bubblewrap runs, `--sandbox`.
 */
export async function benchCommandThroughput(): Promise<Comparison[]> {
  const workingDir = await mkdtemp(path.join(tmpdir(), 'bench-throughput-'));
  const results: Comparison[] = [];
  const modes: { name: string; flags: string[] }[] = [{ name: 'default', flags: [] }];
  if (BubblewrapSandbox.unsupportedReason() === undefined) {
    modes.push({ name: '--sandbox', flags: ['--sandbox'] });
  } else {
    console.warn(`!!! skipping the --sandbox rows: ${BubblewrapSandbox.unsupportedReason()}`);
  }
  try {
    for (const mode of modes) {
      await using server = await startAgentServerProcess([
        '--working-dir',
        workingDir,
        '--session-api-key',
        API_KEY,
        ...mode.flags,
      ]);
      for (const concurrency of CONCURRENCIES) {
        const pool = new Pool(server.url, { connections: concurrency });
        try {
          const rounds = await bestOf<Throughput>({
            rounds: ROUNDS,
            warmup: 1,
            baseline: () => measure(COMMANDS, concurrency, () => rawTrue(workingDir)),
            candidate: () => measure(COMMANDS, concurrency, () => executeTrue(pool)),
          });
          const p99 = (side: Throughput[]) => median(side.map((round) => round.p99Ms));
          results.push(
            roundsComparison({
              scenario: `commands/s: execute_bash_command true, ${concurrency} concurrent clients (agent-server ${mode.name})`,
              baseline: {
                name: `spawn('bash', ['-c', 'true']) ×${concurrency}`,
                samples: rounds.baseline.map((round) => round.perSecond),
              },
              candidate: {
                name: `agent-server ${mode.name} ×${concurrency}`,
                samples: rounds.candidate.map((round) => round.perSecond),
              },
              unit: '/s',
              higherIsBetter: true,
              ...(mode.name === 'default' && { target: '≥ 0.8x' }),
              notes: `p99 (median round): raw ${p99(rounds.baseline).toFixed(1)} ms, agent-server ${p99(rounds.candidate).toFixed(1)} ms; ${COMMANDS} commands per round and side`,
            }),
          );
        } finally {
          await pool.close();
        }
      }
    }
  } finally {
    await rm(workingDir, { recursive: true, force: true });
  }
  return results;
}
