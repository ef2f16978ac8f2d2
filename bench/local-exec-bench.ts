import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalWorkspace } from '@agent-workspace/core';
import { type Comparison, compare } from './bench-harness.js';

/** Raw `child_process.spawn('bash', ['-c', command])`, collecting both streams as strings. */
function rawSpawn(command: string, cwd: string): Promise<{ stdout: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ stdout: Buffer.concat(stdout).toString('utf8'), code }));
  });
}

/** LocalWorkspace.executeCommand against raw spawn: `true` and a 1 MiB-output command. */
export async function benchLocalExec(): Promise<Comparison[]> {
  const workingDir = await mkdtemp(path.join(tmpdir(), 'bench-local-'));
  const workspace = new LocalWorkspace({ workingDir });
  try {
    const oneMiB = 'head -c 1048576 /dev/zero | tr "\\0" a';
    return [
      await compare({
        scenario: "LocalWorkspace.executeCommand('true')",
        iterations: 400,
        baseline: {
          name: "spawn('bash', ['-c', 'true'])",
          run: () => rawSpawn('true', workingDir),
        },
        candidate: {
          name: "LocalWorkspace.executeCommand('true')",
          run: () => workspace.executeCommand('true'),
        },
        target: '≤ 1.2x at p50',
      }),
      await compare({
        scenario: 'LocalWorkspace.executeCommand(1 MiB of output)',
        iterations: 150,
        baseline: { name: 'spawn bash, 1 MiB stdout', run: () => rawSpawn(oneMiB, workingDir) },
        candidate: {
          name: 'LocalWorkspace.executeCommand, 1 MiB stdout',
          run: () => workspace.executeCommand(oneMiB),
        },
        target: '≤ 1.2x at p50',
      }),
    ];
  } finally {
    await workspace.close();
    await rm(workingDir, { recursive: true, force: true });
  }
}
