import path from 'node:path';
import Docker from 'dockerode';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { buildBaseImage } from './image/build-base-image.js';
import { requireDockerEngine } from './testing/require-docker-engine.js';

const tsx = path.resolve(import.meta.dirname, '../../../node_modules/.bin/tsx');

/** Runs the CLI from source, as `agent-workspace-docker ...args`. */
const runCli = (...args: string[]) =>
  execa(tsx, [path.join(import.meta.dirname, 'cli.ts'), ...args], { reject: false });

const dockerAvailable = await requireDockerEngine('agent-workspace-docker CLI tests');

describe.skipIf(!dockerAvailable)('agent-workspace-docker build-image', () => {
  it('prints only the image name on stdout and progress on stderr', async () => {
    const base = await buildBaseImage({ docker: new Docker() });
    const result = await runCli('build-image', '--base-image', base.tag);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^agent-workspace\/agent-server:[0-9a-f]{12}$/);
    expect(result.stderr).toContain(result.stdout);
    // The stable name the READMEs use names the image just built.
    const latest = await new Docker().getImage('agent-workspace/agent-server:latest').inspect();
    expect(latest.Id).toBe((await new Docker().getImage(result.stdout).inspect()).Id);
  });

  it('exits 1 with the error code when the build cannot run', async () => {
    const result = await runCli('build-image', '--base-image', 'agent-workspace-test/missing:0');
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('[PROVISIONING_ERROR]');
    expect(result.stderr).toContain('build-base-image');
  });
});
