// Smoke test of @agent-workspace/remote-api installed alone: importing it registers the
// `remote-api` kind with the one copy of core it installed; the server entry loads; its bin runs.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createWorkspace, WorkspaceError } from '@agent-workspace/core';
import { RemoteAPIWorkspace } from '@agent-workspace/remote-api';
import { createRuntimeApiServer } from '@agent-workspace/remote-api/server';

assert.equal(typeof RemoteAPIWorkspace.create, 'function');
assert.equal(typeof createRuntimeApiServer, 'function');
await assert.rejects(
  () => createWorkspace({ kind: 'remote-api', image: 42 }),
  (error) => error instanceof WorkspaceError && error.code === 'INVALID_CONFIG',
);
const { stdout } = await promisify(execFile)('npx', ['--no-install', 'runtime-api', '--help']);
assert.match(stdout, /--backend/);
console.log('remote-api ok');
