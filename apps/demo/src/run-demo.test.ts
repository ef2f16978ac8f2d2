import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestServer } from '@agent-workspace/agent-server/testing';
import { LocalWorkspace, RemoteWorkspace } from '@agent-workspace/core';
import { afterEach, describe, it } from 'vitest';
import { expectDemoOutcome } from './expect-demo-outcome.js';
import { runDemo } from './run-demo.js';

describe('the demo, scripted', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('writes, tests, fixes and passes on a local workspace', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'demo-test-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await using workspace = new LocalWorkspace({ workingDir: dir });
    const lines: string[] = [];
    expectDemoOutcome(
      await runDemo({ workspace, print: (line) => lines.push(line) }),
      lines,
      'local',
    );
  });

  it('runs the loop in the agent-server of a remote workspace, with the same files and answer', async () => {
    const server = await startTestServer({ sessionApiKeys: ['demo-key'] });
    cleanups.push(() => server.close());
    await using workspace = new RemoteWorkspace({
      host: server.url,
      apiKey: 'demo-key',
      workingDir: server.dir,
    });
    const lines: string[] = [];
    expectDemoOutcome(
      await runDemo({ workspace, print: (line) => lines.push(line) }),
      lines,
      'remote',
    );
  });
});
