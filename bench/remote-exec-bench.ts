import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalWorkspace, RemoteWorkspace } from '@agent-workspace/core';
import { startAgentServerProcess } from './agent-server-process.js';
import { type Comparison, compare, comparisonOf, summarise } from './bench-harness.js';

const API_KEY = 'bench-session-key';

/**
 * RemoteWorkspace over loopback against LocalWorkspace: `true` through the streaming websocket
 * and through the plain OpenHands polling path, and 200 concurrent `sleep 1`.
 */
export async function benchRemoteExec(): Promise<Comparison[]> {
  const workingDir = await mkdtemp(path.join(tmpdir(), 'bench-remote-'));
  const local = new LocalWorkspace({ workingDir });
  const results: Comparison[] = [];
  try {
    for (const mode of ['streaming exec', 'OpenHands polling'] as const) {
      await using server = await startAgentServerProcess([
        '--working-dir',
        workingDir,
        '--session-api-key',
        API_KEY,
        ...(mode === 'OpenHands polling' ? ['--no-extensions'] : []),
      ]);
      await using remote = new RemoteWorkspace({ host: server.url, workingDir, apiKey: API_KEY });
      const comparison = await compare({
        scenario: `RemoteWorkspace.executeCommand('true') over loopback, ${mode}`,
        iterations: 300,
        baseline: {
          name: "LocalWorkspace.executeCommand('true')",
          run: () => local.executeCommand('true'),
        },
        candidate: {
          name: `RemoteWorkspace.executeCommand('true') (${mode})`,
          run: () => remote.executeCommand('true'),
        },
        target: '≤ 1.5x and ≤ 3 ms added at p50',
      });
      results.push({
        ...comparison,
        notes: `added at p50: ${(comparison.candidate.p50 - comparison.baseline.p50).toFixed(3)} ms`,
      });
      if (mode === 'streaming exec') results.push(await concurrentSleeps(local, remote));
    }
  } finally {
    await local.close();
    await rm(workingDir, { recursive: true, force: true });
  }
  return results;
}

/** Wall time of 200 concurrent `sleep 1`, remote against local. */
async function concurrentSleeps(
  local: LocalWorkspace,
  remote: RemoteWorkspace,
): Promise<Comparison> {
  const wall = async (workspace: LocalWorkspace | RemoteWorkspace) => {
    const start = performance.now();
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, () => workspace.executeCommand('sleep 1', { timeoutMs: 60_000 })),
    );
    const failed = outcomes.filter((outcome) => outcome.exitCode !== 0).length;
    if (failed > 0) throw new Error(`${failed} of 200 concurrent sleeps failed`);
    return performance.now() - start;
  };
  const baseline: number[] = [];
  const candidate: number[] = [];
  for (let round = 0; round < 3; round += 1) {
    baseline.push(await wall(local));
    candidate.push(await wall(remote));
  }
  return comparisonOf(
    '200 concurrent `sleep 1` (wall time)',
    summarise('LocalWorkspace: 200 × sleep 1 (wall)', baseline),
    summarise('RemoteWorkspace: 200 × sleep 1 (wall)', candidate),
  );
}
