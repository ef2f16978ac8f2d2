import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { describe, expect, it } from 'vitest';
import { buildAgentServerImage } from './build-agent-server-image.js';
import { resolveAgentServerPackage } from './resolve-agent-server-package.js';

describe('buildAgentServerImage without an engine call', () => {
  it('fails with PROVISIONING_ERROR saying how to build a missing bundle', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'agent-server-source-'));
    try {
      await writeFile(path.join(dir, 'Dockerfile'), 'FROM scratch\n');
      const error = await buildAgentServerImage({ baseImage: 'base', agentServerDir: dir }).catch(
        (caught) => caught,
      );
      expect(WorkspaceError.isInstance(error, 'PROVISIONING_ERROR'), String(error)).toBe(true);
      expect((error as Error).message).toContain(
        'pnpm --filter @agent-workspace/agent-server build',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('finds the agent-server package from this package, where its development copy links it', async () => {
    const found = await resolveAgentServerPackage();
    expect(path.basename(found.dir)).toBe('agent-server');
    expect(found.bundleDir).toBe(path.join(found.dir, 'dist/bundle'));
  });

  it('rejects a bad base image or tag, and an aborted signal, before doing anything', async () => {
    for (const baseImage of [' ', 'Bad Name', 'node:-1']) {
      const badBase = await buildAgentServerImage({ baseImage }).catch((caught) => caught);
      expect(WorkspaceError.isInstance(badBase, 'INVALID_ARGUMENT'), baseImage).toBe(true);
      expect(badBase.details.field).toBe('baseImage');
    }
    const badTag = await buildAgentServerImage({ baseImage: 'base', tag: 'a b' }).catch((e) => e);
    expect(WorkspaceError.isInstance(badTag, 'INVALID_ARGUMENT')).toBe(true);
    expect(badTag.details.field).toBe('tag');
    const aborted = await buildAgentServerImage({
      baseImage: 'base',
      signal: AbortSignal.abort(),
    }).catch((caught) => caught);
    expect(WorkspaceError.isInstance(aborted, 'ABORTED')).toBe(true);
  });
});
