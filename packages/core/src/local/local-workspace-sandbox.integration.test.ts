import { readlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { survivorsOf } from '../command-sandbox/test-support/pid-namespace.js';
import { commandSandboxSkipReason, describeWorkspaceContract } from '../testing/index.js';
import { expectRejection } from '../testing/rejection-of.js';
import { LocalWorkspace } from './local-workspace.js';

const suite = 'LocalWorkspace (bubblewrap sandbox)';
const skipReason = commandSandboxSkipReason(suite);

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'local-workspace-sandbox-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describeWorkspaceContract(
  suite,
  async () => {
    const workingDir = await mkdtemp(path.join(root, 'ws-'));
    return new LocalWorkspace({ workingDir, sandbox: true });
  },
  { skipReason },
);

describe.skipIf(skipReason !== undefined)('LocalWorkspace sandbox option', () => {
  it('starts one sandbox for concurrent first commands and ends it on close()', async () => {
    const workspace = new LocalWorkspace({
      workingDir: await mkdtemp(path.join(root, 'shared-')),
      sandbox: true,
    });
    const namespaces = await Promise.all(
      Array.from({ length: 5 }, () => workspace.executeCommand('readlink /proc/self/ns/pid')),
    );
    const [first] = namespaces.map((result) => result.stdout.trim());
    expect(new Set(namespaces.map((result) => result.stdout.trim()))).toEqual(new Set([first]));
    expect(first).not.toBe(readlinkSync('/proc/self/ns/pid'));
    await workspace.executeCommand('sleep 1000 &');
    await workspace.close();
    expect(await survivorsOf(first as string)).toEqual([]);
  });

  it('reports bad sandbox options at first use, naming the field', async () => {
    await using workspace = new LocalWorkspace({
      workingDir: await mkdtemp(path.join(root, 'bad-')),
      sandbox: { readOnlyPaths: ['relative/path'] },
    });
    const error = await expectRejection(workspace.executeCommand('true'), 'INVALID_ARGUMENT');
    expect(error.details).toEqual({ field: 'readOnlyPaths[0]' });
  });
});
