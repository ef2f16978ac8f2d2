import { DockerWorkspace, resolveAgentServerImage } from '@agent-workspace/docker';
import { execa } from 'execa';
import { type Comparison, comparisonOf, summarise } from './bench-harness.js';

const COLD_START_RUNS = 12;
const PAUSE_RUNS = 10;

/**
 * DockerWorkspace cold start (create → first command returns) against a bare
 * `docker run --rm <image> true` measured in the same run, and pause/resume latency.
 */
export async function benchDocker(): Promise<Comparison[]> {
  const image = await resolveAgentServerImage();
  const bare: number[] = [];
  const cold: number[] = [];
  for (let run = 0; run < COLD_START_RUNS; run += 1) {
    let start = performance.now();
    await execa('docker', ['run', '--rm', '--entrypoint', 'true', image]);
    bare.push(performance.now() - start);
    start = performance.now();
    const workspace = await DockerWorkspace.create({ image, reapOrphans: false });
    try {
      const result = await workspace.executeCommand('true');
      if (result.exitCode !== 0) throw new Error(`first command failed: ${result.stderr}`);
      cold.push(performance.now() - start);
    } finally {
      await workspace.close();
    }
  }
  const pauses: number[] = [];
  const resumes: number[] = [];
  const workspace = await DockerWorkspace.create({ image, reapOrphans: false });
  try {
    for (let run = 0; run < PAUSE_RUNS; run += 1) {
      let start = performance.now();
      await workspace.pause();
      pauses.push(performance.now() - start);
      start = performance.now();
      await workspace.resume();
      resumes.push(performance.now() - start);
    }
  } finally {
    await workspace.close();
  }
  const bareSummary = summarise('docker run --rm <image> true', bare);
  const coldSummary = summarise('DockerWorkspace.create → first command', cold);
  const pauseSummary = summarise('DockerWorkspace.pause()', pauses);
  const resumeSummary = summarise('DockerWorkspace.resume() (until alive)', resumes);
  return [
    comparisonOf(
      'DockerWorkspace cold start (create → first command returns)',
      bareSummary,
      coldSummary,
      {
        target: '≤ 1.5 s median',
        notes: `median cold start ${(coldSummary.p50 / 1000).toFixed(2)} s; image ${image}`,
      },
    ),
    comparisonOf('DockerWorkspace pause / resume latency', pauseSummary, resumeSummary, {
      notes: 'baseline row is pause(), candidate row is resume() including the wait until alive',
    }),
  ];
}
