// Smoke test of @agent-workspace/runtime-plugins installed alone: a plugin host with the python
// plugin (Debian's python3-ipykernel, zeromq's prebuilt addon) runs a cell; an unknown plugin is
// reported as failed, never thrown.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PluginHost } from '@agent-workspace/runtime-plugins';

const dir = mkdtempSync(path.join(tmpdir(), 'runtime-plugins-smoke-'));
try {
  const host = PluginHost.start({ plugins: ['python', 'no-such-plugin'], workingDir: dir });
  const observation = await host.executeAction({
    action: 'run_ipython',
    args: { code: 'print(6 * 7)' },
  });
  assert.equal(observation.observation, 'run_ipython');
  assert.match(observation.content, /42/);
  const states = (await host.status()).map(({ name, state }) => `${name}:${state}`);
  assert.deepEqual(states, ['python:ready', 'no-such-plugin:failed']);
  await host.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log('runtime-plugins ok');
