import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer, type TestServer } from '@agent-workspace/agent-server/testing';
import { RemoteWorkspace, WorkspaceError } from '@agent-workspace/core';
import { rejectionOf, suiteSkipReason } from '@agent-workspace/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { startNumberTablePage } from '../test-support/number-table-page.js';
import { ProcessSandboxWorkspace } from '../test-support/process-sandbox-workspace.js';

const API_KEY = 'actions-test-session-key';

type RuntimePluginStatusWire = Awaited<ReturnType<RemoteWorkspace['runtimePlugins']>>[number];

/** The plugins' states once none is `starting` any more (Chromium and the kernel take seconds). */
async function settledPlugins(workspace: RemoteWorkspace): Promise<RuntimePluginStatusWire[]> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const plugins = await workspace.runtimePlugins();
    if (plugins.every((plugin) => plugin.state !== 'starting') || Date.now() > deadline) {
      return plugins;
    }
    await sleep(200);
  }
}

function skipReasonOf(
  suite: string,
  plugins: RuntimePluginStatusWire[],
  name: string,
): string | undefined {
  const plugin = plugins.find((candidate) => candidate.name === name);
  return suiteSkipReason(
    suite,
    plugin?.state === 'ready'
      ? undefined
      : `the ${name} plugin is ${plugin?.state}: ${plugin?.error}`,
  );
}

function remoteOf(server: TestServer): RemoteWorkspace {
  return new RemoteWorkspace({ host: server.url, workingDir: server.dir, apiKey: API_KEY });
}

// Started while the suites are collected: whether Chromium and the kernel run here decides what
// is skipped (loudly; under CI=true it fails).
const server = await startTestServer({ sessionApiKeys: [API_KEY], plugins: ['browser', 'python'] });
const workspace = remoteOf(server);
const plugins = await settledPlugins(workspace);
const browserSkip = skipReasonOf('RemoteWorkspace browse (Chromium)', plugins, 'browser');
const pythonSkip = skipReasonOf('RemoteWorkspace runIpython (IPython kernel)', plugins, 'python');

afterAll(async () => {
  await workspace.close();
  await server.close();
});

describe('RemoteWorkspace runtime plugins', () => {
  it('lists the server`s plugins with their actions', () => {
    expect(plugins.map((plugin) => [plugin.name, plugin.actions])).toEqual([
      ['browser', ['browse', 'browse_interactive']],
      ['python', ['run_ipython']],
    ]);
  });

  it('refuses bad arguments with INVALID_ARGUMENT naming the field', async () => {
    const cases: Array<[Parameters<RemoteWorkspace['executeAction']>[0], string]> = [
      [{ action: 'browse', args: { url: 'not a url' } }, 'action.args.url'],
      [{ action: 'run_ipython', args: { code: 42 } }, 'action.args.code'],
      [{ action: 'run_ipython', args: { code: '1' }, timeout: 99_999 }, 'action.timeout'],
      [{ action: 'no_such_action', args: {} }, 'action.action'],
    ];
    for (const [action, field] of cases) {
      const error = await rejectionOf(workspace.executeAction(action));
      expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT'), String(error)).toBe(true);
      expect((error as WorkspaceError).details.field, (error as Error).message).toBe(field);
      expect((error as Error).message).toContain(field);
    }
  });

  it('answers an action of a plugin the server did not enable with an error observation', async () => {
    await using bare = await startTestServer({ sessionApiKeys: [API_KEY] });
    await using remote = remoteOf(bare);
    expect(await remote.runtimePlugins()).toEqual([]);
    const observation = await remote.browse('http://127.0.0.1:1/');
    expect(observation).toMatchObject({
      observation: 'error',
      extras: { error_id: 'PLUGIN_DISABLED' },
    });
    expect(observation.content).toContain('browse');
  });
});

describe.skipIf(browserSkip)('RemoteWorkspace browse', () => {
  it('opens a loopback page, then clicks its link by element id', async () => {
    await using page = await startNumberTablePage();
    const opened = await workspace.browse(page.url, { returnAxtree: true });
    if (opened.observation !== 'browse') throw new Error(`browse failed: ${opened.content}`);
    expect(opened.title).toBe('Numbers');
    expect(opened.extras.url).toBe(page.url);
    expect(opened.extras.error).toBe(false);
    expect(opened.content).toContain('Quarterly numbers');
    expect(opened.content).toContain('17');
    const link = opened.extras.axtree_object.nodes.find(
      (node) => node.role === 'link' && node.name === 'Next page',
    );
    expect(link?.bid).toBeTruthy();
    const clicked = await workspace.browseInteractive(`click(${JSON.stringify(link?.bid)})`);
    if (clicked.observation !== 'browse') throw new Error(`click failed: ${clicked.content}`);
    expect(clicked.extras.url).toBe(`${page.url}next`);
    expect(clicked.content).toContain('second page');
  });
});

describe.skipIf(pythonSkip)('RemoteWorkspace runIpython', () => {
  it('runs cells in the server`s kernel, which keeps its variables', async () => {
    const first = await workspace.runIpython('total = 17 + 25\ntotal');
    expect(first).toMatchObject({ observation: 'run_ipython' });
    expect(first.content).toContain('42');
    const second = await workspace.runIpython('print(total * 2)', { timeoutSeconds: 30 });
    expect(second.content).toContain('84');
  });

  it('runs them in a sandbox workspace`s agent-server too', async () => {
    await using sandbox = new ProcessSandboxWorkspace({ serverArgs: ['--plugin', 'python'] });
    const observation = await sandbox.runIpython('import os\nprint(os.getcwd())');
    expect(observation.observation).toBe('run_ipython');
    expect(observation.content).toContain('process-sandbox-');
    expect((await sandbox.runtimePlugins()).map((plugin) => plugin.name)).toEqual(['python']);
  });
});
