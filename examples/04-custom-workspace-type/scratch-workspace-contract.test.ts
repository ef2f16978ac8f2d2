/**
 * The shared workspace contract on scratch workspaces built the way users build them: through
 * `createWorkspace({ kind: 'scratch' })`, so the kind is registered before the suite runs.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createWorkspace } from '@agent-workspace/core';
import { describeWorkspaceContract } from '@agent-workspace/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerScratchWorkspaceType } from './register-scratch-workspace-type.js';

// Registered at load time: the suite's own beforeAll already calls createWorkspace.
const unregister = registerScratchWorkspaceType();
// This file owns the root; every workspace deletes its own directory on close.
let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'scratch-contract-'));
});
afterAll(async () => {
  unregister();
  await rm(root, { recursive: true, force: true });
});

let created = 0;
describeWorkspaceContract('ScratchWorkspace', async () => {
  created += 1;
  return createWorkspace({ kind: 'scratch', name: `contract-${created}`, root });
});

// Runs after the contract suite, whose afterAll has closed its shared workspace by then.
describe('after the contract suite', () => {
  it('every workspace it made has removed its directory', async () => {
    expect(created).toBeGreaterThan(1);
    expect(await readdir(root)).toEqual([]);
  });
});
