import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BubblewrapSandbox, LocalWorkspace, RemoteWorkspace } from '@agent-workspace/core';
import { peakRssOf, startAgentServerProcess } from './agent-server-process.js';
import { type Comparison, compare, comparisonOf, summarise } from './bench-harness.js';

const API_KEY = 'bench-session-key';
const GIB = 1024 ** 3;

/** `spawn('bash', ['-c', 'true'])` to its exit. */
function rawTrue(cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', 'true'], { cwd, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

/**
 * What the hardening costs: a command in the bubblewrap sandbox and one on a confined,
 * sandboxed agent-server against raw spawn, and the server's peak RSS while a command prints
 * 1 GiB against a bare `node` process.
 */
export async function benchHardening(): Promise<Comparison[]> {
  const workingDir = await mkdtemp(path.join(tmpdir(), 'bench-hardening-'));
  const results: Comparison[] = [];
  try {
    if (BubblewrapSandbox.unsupportedReason() === undefined) {
      await using sandboxed = new LocalWorkspace({ workingDir, sandbox: true });
      const comparison = await compare({
        scenario: "LocalWorkspace({ sandbox: true }).executeCommand('true')",
        iterations: 200,
        baseline: { name: "spawn('bash', ['-c', 'true'])", run: () => rawTrue(workingDir) },
        candidate: {
          name: 'sandboxed executeCommand',
          run: () => sandboxed.executeCommand('true'),
        },
        target: 'a few ms added (nsenter + setpriv per command)',
      });
      results.push({ ...comparison, notes: addedNote(comparison) });

      await using server = await startAgentServerProcess([
        '--working-dir',
        workingDir,
        '--session-api-key',
        API_KEY,
        '--sandbox',
      ]);
      await using remote = new RemoteWorkspace({ host: server.url, workingDir, apiKey: API_KEY });
      const confined = await compare({
        scenario: "RemoteWorkspace.executeCommand('true') on agent-server --sandbox",
        iterations: 200,
        baseline: { name: "spawn('bash', ['-c', 'true'])", run: () => rawTrue(workingDir) },
        candidate: {
          name: 'remote, sandboxed, confined',
          run: () => remote.executeCommand('true'),
        },
      });
      results.push({ ...confined, notes: addedNote(confined) });
    } else {
      console.warn(`!!! skipping sandbox scenarios: ${BubblewrapSandbox.unsupportedReason()}`);
    }
    results.push(await outputMemory(workingDir));
  } finally {
    await rm(workingDir, { recursive: true, force: true });
  }
  return results;
}

function addedNote(comparison: Comparison): string {
  return `added at p50: ${(comparison.candidate.p50 - comparison.baseline.p50).toFixed(3)} ms`;
}

/** Peak RSS of the agent-server (with a state dir) while one command prints 1 GiB. */
async function outputMemory(workingDir: string): Promise<Comparison> {
  const baseline: number[] = [];
  const candidate: number[] = [];
  for (let round = 0; round < 3; round++) {
    baseline.push(await bareNodeRssMiB());
    const stateDir = await mkdtemp(path.join(tmpdir(), 'bench-state-'));
    try {
      await using server = await startAgentServerProcess([
        '--working-dir',
        workingDir,
        '--state-dir',
        stateDir,
      ]);
      await using remote = new RemoteWorkspace({ host: server.url, workingDir });
      await remote.executeCommand(`yes 'a line of output' | head -c ${GIB}`, {
        timeoutMs: 300_000,
      });
      candidate.push((await server.peakRssBytes()) / 1024 ** 2);
    } finally {
      await rm(stateDir, { recursive: true, force: true });
    }
  }
  return comparisonOf(
    'agent-server memory while a command prints 1 GiB (history capped at 16 MiB)',
    summarise('bare node (RSS at start)', baseline, 'MiB'),
    summarise('agent-server peak RSS, 1 GiB output', candidate, 'MiB'),
    {
      target:
        'flat in the output size (was 1.2 GB before the per-command cap and log backpressure)',
    },
  );
}

/** Peak RSS of a bare `node` that waits a moment, in MiB. */
async function bareNodeRssMiB(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 300)'], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 200));
  const rss = (await peakRssOf(child.pid as number)) / 1024 ** 2;
  await new Promise((resolve) => child.once('exit', resolve));
  return rss;
}
