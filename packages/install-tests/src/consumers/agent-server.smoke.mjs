// Smoke test of @agent-workspace/agent-server installed alone: the server answers only with its
// key, runs a bash command, serves the web page at `/`, and its `agent-server` bin starts.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createAgentServer } from '@agent-workspace/agent-server';

const workingDir = await mkdtemp(path.join(tmpdir(), 'server-smoke-'));
const key = 'smoke-key';
const server = await createAgentServer({ port: 0, workingDir, sessionApiKeys: [key] });
try {
  const route = `${server.url}/api/bash/execute_bash_command`;
  const request = {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-session-api-key': key },
    body: JSON.stringify({ command: 'echo served' }),
  };
  assert.equal((await fetch(route, { ...request, headers: {} })).status, 401);
  const response = await fetch(route, request);
  assert.equal(response.status, 200);
  assert.equal((await response.json()).stdout, 'served\n');
  const page = await fetch(`${server.url}/`);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /<div id="app">/);
  const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html);
  assert.ok(script, 'the page names its script');
  assert.equal((await fetch(`${server.url}/${script[1]}`)).status, 200);
} finally {
  await server.close();
  await rm(workingDir, { recursive: true, force: true });
}
const { stdout } = await promisify(execFile)('npx', ['--no-install', 'agent-server', '--version']);
assert.match(stdout, /^\d+\.\d+\.\d+/);
console.log('agent-server ok');
