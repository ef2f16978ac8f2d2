/**
 * `pnpm bench`: every scenario compares our code with a baseline measured in the same run and
 * reports p50/p95 and their ratio. Results are also written to bench/results/latest.json.
 * Pass scenario group names to run only some: `pnpm bench local`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchAgentLoop } from './agent-loop-bench.js';
import { benchArchiveCodec } from './archive-codec-bench.js';
import { type Comparison, printComparison } from './bench-harness.js';
import { benchCommandThroughput } from './command-throughput-bench.js';
import { benchDirectoryTransfer } from './directory-transfer-bench.js';
import { benchDocker } from './docker-bench.js';
import { benchDockerExec } from './docker-exec-bench.js';
import { benchDockerSnapshot } from './docker-snapshot-bench.js';
import { benchEgress } from './egress-bench.js';
import { benchGitChanges } from './git-changes-bench.js';
import { benchGitWorkspaces } from './git-workspaces-bench.js';
import { benchHardening } from './hardening-bench.js';
import { benchImportCost } from './import-cost-bench.js';
import { benchLocalExec } from './local-exec-bench.js';
import { benchRemoteExec } from './remote-exec-bench.js';
import { benchRuntimeApi } from './runtime-api-bench.js';
import { benchRuntimeApiPool } from './runtime-api-pool-bench.js';
import { benchRuntimePlugins } from './runtime-plugins-bench.js';
import { benchSecretMasking } from './secret-masking-bench.js';
import { benchTransfer } from './transfer-bench.js';
import { benchUi } from './ui-bench.js';
import { benchWorkspaceArchive } from './workspace-archive-bench.js';

const groups: Record<string, () => Promise<Comparison[]>> = {
  local: benchLocalExec,
  remote: benchRemoteExec,
  transfer: benchTransfer,
  directory: async () => [...(await benchArchiveCodec()), ...(await benchDirectoryTransfer())],
  archive: benchWorkspaceArchive,
  docker: benchDocker,
  'docker-exec': benchDockerExec,
  snapshot: benchDockerSnapshot,
  runtime: benchRuntimeApi,
  'runtime-pool': benchRuntimeApiPool,
  git: benchGitWorkspaces,
  'git-changes': benchGitChanges,
  plugins: benchRuntimePlugins,
  hardening: benchHardening,
  egress: benchEgress,
  agent: benchAgentLoop,
  import: benchImportCost,
  secrets: benchSecretMasking,
  ui: benchUi,
  throughput: benchCommandThroughput,
};

const selected = process.argv.slice(2).filter((name) => !name.startsWith('-'));
const names = selected.length > 0 ? selected : Object.keys(groups);
const results: Comparison[] = [];
for (const name of names) {
  const group = groups[name];
  if (!group)
    throw new Error(`unknown bench group "${name}" (known: ${Object.keys(groups).join(', ')})`);
  for (const comparison of await group()) {
    printComparison(comparison);
    results.push(comparison);
  }
}

const outputDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');
await mkdir(outputDir, { recursive: true });
const report = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: os.cpus().length,
  results,
};
await writeFile(path.join(outputDir, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
console.log(`\nwrote ${path.join('bench', 'results', 'latest.json')}`);
