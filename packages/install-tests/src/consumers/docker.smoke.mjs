// Smoke test of @agent-workspace/docker installed alone: importing it registers the `docker`
// kind with the one copy of core it installed, which validates a config; its bin runs, and
// building an image without the agent-server package (an optional peer) says how to install it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createWorkspace, WorkspaceError } from '@agent-workspace/core';
import { DockerWorkspace } from '@agent-workspace/docker';

assert.equal(typeof DockerWorkspace.create, 'function');
await assert.rejects(
  () => createWorkspace({ kind: 'docker', image: 42 }),
  (error) => error instanceof WorkspaceError && error.code === 'INVALID_CONFIG',
);
const { stdout } = await promisify(execFile)('npx', [
  '--no-install',
  'agent-workspace-docker',
  '--help',
]);
assert.match(stdout, /build-image/);
const build = await promisify(execFile)('npx', [
  '--no-install',
  'agent-workspace-docker',
  'build-image',
  '--base-image',
  'node:20-bookworm-slim',
]).catch((error) => error);
assert.equal(build.code, 1);
assert.match(build.stderr, /\[PROVISIONING_ERROR\]/);
assert.match(build.stderr, /install it with: npm install @agent-workspace\/agent-server/);
console.log('docker ok');
