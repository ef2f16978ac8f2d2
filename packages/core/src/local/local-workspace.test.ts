import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { describeWorkspaceContract } from '../testing/index.js';
import { LocalWorkspace } from './local-workspace.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'local-workspace-contract-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describeWorkspaceContract('LocalWorkspace', async () => {
  const workingDir = await mkdtemp(path.join(root, 'ws-'));
  return new LocalWorkspace({ workingDir });
});
