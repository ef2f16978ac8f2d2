import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

const tsx = path.resolve(import.meta.dirname, '../../../node_modules/.bin/tsx');

/** Runs the CLI from source, as `agent-workspace-docker ...args`. */
const runCli = (...args: string[]) =>
  execa(tsx, [path.join(import.meta.dirname, 'cli.ts'), ...args], { reject: false });

describe('agent-workspace-docker', () => {
  it('prints usage with --help and exits 2 naming a bad command', async () => {
    const help = await runCli('--help');
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('Usage: agent-workspace-docker <command>');
    const bad = await runCli('bogus');
    expect(bad.exitCode).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('"bogus"');
  });
});
