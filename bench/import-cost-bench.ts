import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Comparison, comparisonOf, summarise } from './bench-harness.js';

const ROUNDS = 20;
const run = promisify(execFile);
const repositoryRoot = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Both children print their peak RSS (KiB on Linux) as they exit. */
const PRINT_PEAK_RSS = "process.on('exit', () => console.log(process.resourceUsage().maxRSS));";
const BARE_NODE = ['-e', PRINT_PEAK_RSS];
const IMPORT_AND_RUN = [
  '--input-type=module',
  '-e',
  `${PRINT_PEAK_RSS}
  const { LocalWorkspace } = await import('@agent-workspace/core');
  await new LocalWorkspace({ workingDir: process.cwd() }).executeCommand('true');`,
];

interface ChildRun {
  ms: number;
  peakRssMiB: number;
}

/** Runs a fresh `node` with `args` to its exit: wall time and peak RSS. */
async function runNode(args: string[]): Promise<ChildRun> {
  const start = performance.now();
  const { stdout } = await run(process.execPath, args, { cwd: repositoryRoot });
  const ms = performance.now() - start;
  return { ms, peakRssMiB: Number(stdout.trim().split('\n').pop()) / 1024 };
}

/**
 * What `import { LocalWorkspace } from '@agent-workspace/core'` and one `executeCommand('true')`
 * add to a fresh `node` over a bare `node -e 0`: wall time and peak RSS, interleaved runs.
 */
export async function benchImportCost(): Promise<Comparison[]> {
  // Warm the page cache, so neither side pays for the first read of node and the packages.
  await runNode(BARE_NODE);
  await runNode(IMPORT_AND_RUN);
  const bare: ChildRun[] = [];
  const imported: ChildRun[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const steps = [
      async () => bare.push(await runNode(BARE_NODE)),
      async () => imported.push(await runNode(IMPORT_AND_RUN)),
    ];
    for (const step of round % 2 === 0 ? steps : steps.reverse()) await step();
  }
  const scenario = "import { LocalWorkspace } from '@agent-workspace/core' + one executeCommand";
  const compareBy = (key: keyof ChildRun, unit: string, measure: string, target: string) => {
    const added = Math.min(...imported.map((r) => r[key])) - Math.min(...bare.map((r) => r[key]));
    return comparisonOf(
      `${scenario}: ${measure}`,
      summarise(
        'node -e 0',
        bare.map((r) => r[key]),
        unit,
      ),
      summarise(
        'import core, LocalWorkspace true',
        imported.map((r) => r[key]),
        unit,
      ),
      { target, notes: `added, best of ${ROUNDS}: ${added.toFixed(1)} ${unit}` },
    );
  };
  return [
    compareBy('ms', 'ms', 'process wall time', '≤ +150 ms over bare node'),
    compareBy('peakRssMiB', 'MiB', 'peak RSS', '≤ +15 MB (14.3 MiB) over bare node'),
  ];
}
