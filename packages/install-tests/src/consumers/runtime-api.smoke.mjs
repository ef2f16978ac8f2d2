// Smoke test of @agent-workspace/runtime-api installed alone: the server entry loads; its bin runs.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createRuntimeApiServer, DockerRuntimeBackend } from '@agent-workspace/runtime-api';

assert.equal(typeof createRuntimeApiServer, 'function');
assert.equal(typeof DockerRuntimeBackend, 'function');
const { stdout } = await promisify(execFile)('npx', ['--no-install', 'runtime-api', '--help']);
assert.match(stdout, /--backend/);
console.log('runtime-api ok');
