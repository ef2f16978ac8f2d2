import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PluginHost } from './plugin-host.js';
import type { PluginContext, RuntimePlugin } from './runtime-plugin.js';
import { runtimePluginUnavailableReason } from './runtime-plugin-unavailable-reason.js';

/** A plugin of our own interface whose start and actions the test controls. */
function echoPlugin(
  overrides: Partial<RuntimePlugin> & { started?: Promise<void> } = {},
): RuntimePlugin & {
  context?: PluginContext;
  closed: number;
} {
  const plugin = {
    name: 'echo',
    requirements: [],
    capabilities: ['echo.extra_v1'],
    closed: 0,
    context: undefined as PluginContext | undefined,
    actions: {
      echo: {
        args: z.object({ text: z.string().max(10), delayMs: z.number().default(0) }),
        run: async (
          { text, delayMs }: { text: string; delayMs: number },
          { signal }: { signal: AbortSignal },
        ) => {
          await new Promise((resolve) => setTimeout(resolve, delayMs));
          return { observation: 'echo', content: signal.aborted ? 'aborted' : text, extras: {} };
        },
      },
    },
    async initialize(context: PluginContext) {
      plugin.context = context;
      await overrides.started;
    },
    health: async () => ({ healthy: true, memoryBytes: 123 }),
    async close() {
      plugin.closed += 1;
    },
    ...overrides,
  };
  return plugin as never;
}

describe('PluginHost', () => {
  let workingDir: string;
  beforeEach(async () => {
    workingDir = await mkdtemp(path.join(os.tmpdir(), 'plugin-host-'));
  });
  afterEach(async () => {
    await rm(workingDir, { recursive: true, force: true });
  });

  it('starts plugins in the background and runs their actions once ready', async () => {
    let release!: () => void;
    const started = new Promise<void>((resolve) => {
      release = resolve;
    });
    const plugin = echoPlugin({ started });
    await using host = PluginHost.start({
      plugins: [plugin],
      workingDir,
      stateDir: path.join(workingDir, 'state'),
    });
    expect((await host.status())[0]).toMatchObject({
      name: 'echo',
      state: 'starting',
      capabilities: [],
    });
    const pending = host.executeAction({ action: 'echo', args: { text: 'hi' } });
    release();
    await expect(pending).resolves.toMatchObject({ observation: 'echo', content: 'hi' });
    expect(await host.status()).toEqual([
      {
        name: 'echo',
        state: 'ready',
        error: null,
        actions: ['echo'],
        capabilities: ['agent_workspace.plugin.echo_v1', 'echo.extra_v1'],
        healthy: true,
        memory_bytes: 123,
      },
    ]);
    expect(plugin.context?.workingDir).toBe(workingDir);
    expect(plugin.context?.stateDir).toBe(path.join(workingDir, 'state', 'echo'));
    expect(host.capabilities()).toContain('agent_workspace.plugin.echo_v1');
  });

  it('names the argument that is wrong', async () => {
    await using host = PluginHost.start({ plugins: [echoPlugin()], workingDir });
    const error = await host
      .executeAction({ action: 'echo', args: { text: 'x'.repeat(11) } })
      .catch((e: unknown) => e);
    expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as WorkspaceError).details.field).toBe('action.args.text');
    await expect(host.executeAction({ action: 'teleport', args: {} })).rejects.toThrow(
      /action\.action .*teleport.*echo/,
    );
  });

  it('answers a built-in action whose plugin is not enabled with an error observation', async () => {
    await using host = PluginHost.start({ plugins: [], workingDir });
    await expect(
      host.executeAction({ action: 'run_ipython', args: { code: '1' } }),
    ).resolves.toMatchObject({
      observation: 'error',
      extras: { error_id: 'PLUGIN_DISABLED' },
    });
  });

  it('reports a missing requirement with its install hint and never throws', async () => {
    const plugin = echoPlugin({
      requirements: [
        {
          kind: 'binary',
          name: 'Frobnicator',
          candidates: ['/nonexistent/frob', 'frob-no-such'],
          install: 'apt-get install -y frob',
        },
        { kind: 'env', name: 'AGENT_WORKSPACE_TEST_UNSET_VARIABLE', install: 'export it' },
      ],
    });
    await using host = PluginHost.start({ plugins: [plugin], workingDir });
    await expect(
      host.executeAction({ action: 'echo', args: { text: 'x' } }),
    ).resolves.toMatchObject({
      observation: 'error',
      extras: { error_id: 'PLUGIN_FAILED' },
    });
    const [status] = await host.status();
    expect(status?.state).toBe('failed');
    expect(status?.error).toMatch(
      /Frobnicator was not found .*apt-get install -y frob.*AGENT_WORKSPACE_TEST_UNSET_VARIABLE is not set/,
    );
    expect(plugin.context).toBeUndefined();
  });

  it('reports a plugin whose start throws or takes too long, and closes it', async () => {
    const throwing = echoPlugin({
      name: 'thrower',
      initialize: async () => {
        throw new Error('no display');
      },
    });
    const slow = echoPlugin({ name: 'slow', started: new Promise(() => {}) });
    await using host = PluginHost.start({
      plugins: [throwing, slow],
      workingDir,
      startTimeoutMs: 200,
    });
    await expect
      .poll(async () =>
        (await host.status()).map(({ name, state, error }) => `${name}:${state}:${error}`),
      )
      .toEqual([
        'thrower:failed:failed to start: no display',
        'slow:failed:did not start within 0.2 s',
      ]);
    expect(throwing.closed).toBe(1);
    expect(slow.closed).toBe(1);
  });

  it('reports an unknown plugin name as failed', async () => {
    await using host = PluginHost.start({ plugins: ['no-such-plugin'], workingDir });
    await host.loaded;
    const [status] = await host.status();
    expect(status).toMatchObject({ name: 'no-such-plugin', state: 'failed' });
    expect(status?.error).toMatch(
      /neither a known plugin \(browser, python\) nor an installed package/,
    );
  });

  it('removes the temporary state directory it made at close', async () => {
    const plugin = echoPlugin();
    const host = PluginHost.start({ plugins: [plugin], workingDir });
    await host.whenReady('echo');
    const stateDir = plugin.context?.stateDir as string;
    expect(existsSync(stateDir)).toBe(true);
    await host.close();
    expect(existsSync(path.dirname(stateDir))).toBe(false);
  });

  it('gives plugins an environment without the server’s keys, or the one it was given', async () => {
    const saved = process.env.SESSION_API_KEY;
    process.env.SESSION_API_KEY = 'server-secret';
    try {
      const scrubbed = echoPlugin();
      const given = echoPlugin({ name: 'given' });
      await using first = PluginHost.start({ plugins: [scrubbed], workingDir });
      await using second = PluginHost.start({
        plugins: [given],
        workingDir,
        environment: { ONLY: 'this' },
      });
      await Promise.all([first.whenReady('echo'), second.whenReady('given')]);
      expect(scrubbed.context?.environment?.PATH).toBe(process.env.PATH);
      expect(scrubbed.context?.environment).not.toHaveProperty('SESSION_API_KEY');
      expect(given.context?.environment).toEqual({ ONLY: 'this' });
      expect(given.context?.sandbox).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.SESSION_API_KEY;
      else process.env.SESSION_API_KEY = saved;
    }
  });

  it('refuses an environment that is not strings, naming the variable', () => {
    const start = (environment: unknown) => () =>
      PluginHost.start({ plugins: [], workingDir, environment: environment as never });
    expect(start({ PATH: 3 })).toThrow('environment.PATH must be a string, got number');
    expect(start(['PATH=/usr/bin'])).toThrow('environment must be an object');
  });

  it('refuses a plugin listed twice', () => {
    expect(() => PluginHost.start({ plugins: ['python', 'python'], workingDir })).toThrow(
      /lists python twice/,
    );
  });

  it('cancels an action when the caller aborts and closes each plugin once', async () => {
    const plugin = echoPlugin();
    const host = PluginHost.start({ plugins: [plugin], workingDir });
    const abort = new AbortController();
    const pending = host.executeAction(
      { action: 'echo', args: { text: 'x', delayMs: 300 } },
      { signal: abort.signal },
    );
    abort.abort();
    await expect(pending).resolves.toMatchObject({
      content: expect.stringMatching(/aborted|cancelled/),
    });
    await Promise.all([host.close(), host.close()]);
    expect(plugin.closed).toBe(1);
    expect((await host.status())[0]?.state).toBe('closed');
  });
});

describe('runtimePluginUnavailableReason', () => {
  it('names an unknown plugin and a missing interpreter with its install hint', async () => {
    expect(await runtimePluginUnavailableReason('no-such-plugin')).toMatch(
      /neither a known plugin/,
    );
    const saved = process.env.AGENT_WORKSPACE_PYTHON;
    process.env.AGENT_WORKSPACE_PYTHON = '/nonexistent/python3';
    try {
      expect(await runtimePluginUnavailableReason('python')).toMatch(
        /Python 3 was not found \(looked for \/nonexistent\/python3\).*apt-get install/,
      );
    } finally {
      if (saved === undefined) delete process.env.AGENT_WORKSPACE_PYTHON;
      else process.env.AGENT_WORKSPACE_PYTHON = saved;
    }
  });
});
