import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
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

  it('exits 2 with INVALID_ARGUMENT naming a bad image reference, before any engine call', async () => {
    // DOCKER_HOST points nowhere: an engine call would fail differently (CONNECTION_ERROR, 1).
    const env = { DOCKER_HOST: 'unix:///nonexistent/docker.sock' };
    const badBase = await execa(
      tsx,
      [path.join(import.meta.dirname, 'cli.ts'), 'build-image', '--base-image', 'Bad Name'],
      { reject: false, env },
    );
    expect(badBase.exitCode).toBe(2);
    expect(badBase.stdout).toBe('');
    expect(badBase.stderr).toContain(
      'agent-workspace-docker [INVALID_ARGUMENT]: --base-image is not a valid image reference ("Bad Name"): it contains whitespace',
    );
    const emptyDir = await mkdtemp(path.join(os.tmpdir(), 'agent-server-dir-'));
    try {
      const noBundle = await execa(
        tsx,
        [
          path.join(import.meta.dirname, 'cli.ts'),
          'build-image',
          '--base-image',
          'b',
          '--agent-server-dir',
          emptyDir,
        ],
        { reject: false, env },
      );
      expect(noBundle.exitCode).toBe(1);
      expect(noBundle.stderr).toContain(
        `agent-workspace-docker [PROVISIONING_ERROR]: the agent-server image cannot be built: ${path.join(emptyDir, 'Dockerfile')} is missing`,
      );
    } finally {
      await rm(emptyDir, { recursive: true, force: true });
    }
    const badTag = await runCli('build-base-image', '--tag', 'Upper/Case');
    expect(badTag.exitCode).toBe(2);
    expect(badTag.stderr).toContain('--tag is not a valid image reference ("Upper/Case")');
  });
});
