// Smoke test of @agent-workspace/runtime-plugins: a plugin host with the python plugin (Debian's
// python3-ipykernel, zeromq's prebuilt addon) runs a cell; an unknown plugin is reported as
// failed, never thrown. Installed alone, without its optional peer zeromq (`node smoke.mjs
// without-zeromq`), the python plugin fails instead, naming the install command.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PluginHost } from '@agent-workspace/runtime-plugins';

const withoutZeromq = process.argv[2] === 'without-zeromq';
const dir = mkdtempSync(path.join(tmpdir(), 'runtime-plugins-smoke-'));
try {
  const host = PluginHost.start({ plugins: ['python', 'no-such-plugin'], workingDir: dir });
  if (withoutZeromq) {
    let python;
    for (let tries = 0; tries < 300; tries++) {
      python = (await host.status())[0];
      if (python.state === 'failed' || python.state === 'ready') break;
      await sleep(100);
    }
    assert.equal(python.state, 'failed');
    assert.match(python.error, /install it with: npm install zeromq/);
  } else {
    const observation = await host.executeAction({
      action: 'run_ipython',
      args: { code: 'print(6 * 7)' },
    });
    assert.equal(observation.observation, 'run_ipython');
    assert.match(observation.content, /42/);
    const states = (await host.status()).map(({ name, state }) => `${name}:${state}`);
    assert.deepEqual(states, ['python:ready', 'no-such-plugin:failed']);
  }
  await host.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log('runtime-plugins ok');
