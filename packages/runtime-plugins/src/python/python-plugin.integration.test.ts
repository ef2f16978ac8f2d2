import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import {
  type IPythonRunCellObservationWire,
  ipythonRunCellArgsSchema,
  ipythonRunCellObservationWireSchema,
} from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryMonitor } from '../memory/memory-monitor.js';
import { checkRequirements } from '../plugin/check-requirements.js';
import { PluginHost } from '../plugin/plugin-host.js';
import type { PluginContext, RuntimePlugin } from '../plugin/runtime-plugin.js';
import { silentPluginLogger } from '../plugin/silent-plugin-logger.js';
import { createPythonPlugin } from './python-plugin.js';
import { isProcessRunning } from './test-support/is-process-running.js';
import { pythonSkipReason, TEST_PYTHON } from './test-support/python-skip-reason.js';
import { tinyPng } from './test-support/tiny-png.js';

const MEMORY_LIMIT_BYTES = 300 * 1024 ** 2;
const WAIT = { timeout: 20_000, interval: 50 };

describe('python plugin requirements', () => {
  it('fails its checks with what is missing and how to install it for an interpreter that does not exist', async () => {
    const plugin = createPythonPlugin({ pythonPath: '/nonexistent/python3' });
    expect(plugin).toMatchObject({ name: 'python', capabilities: [] });
    expect(Object.keys(plugin.actions)).toEqual(['run_ipython']);
    const report = await checkRequirements(plugin.requirements, AbortSignal.timeout(30_000));
    expect(report.problems).toHaveLength(2);
    expect(report.problems[0]).toMatch(
      /Python 3 was not found \(looked for \/nonexistent\/python3\)/,
    );
    expect(report.problems[1]).toMatch(
      /ipykernel: no Python interpreter found \(looked for \/nonexistent\/python3\).*apt-get install -y python3-ipykernel/,
    );
  });

  it('fails the ipykernel check for an interpreter that cannot import it', async () => {
    const check = createPythonPlugin({ pythonPath: '/bin/false' }).requirements.find(
      (requirement) => requirement.kind === 'check',
    );
    if (check?.kind !== 'check') throw new Error('the plugin has no check requirement');
    expect(await check.check(AbortSignal.timeout(30_000))).toMatch(
      /^\/bin\/false cannot import ipykernel/,
    );
  });

  it('refuses to initialize without an interpreter', async () => {
    const plugin = createPythonPlugin({ pythonPath: '/nonexistent/python3' });
    const context: PluginContext = {
      workingDir: os.tmpdir(),
      stateDir: os.tmpdir(),
      logger: silentPluginLogger,
      signal: new AbortController().signal,
      watchProcessTree: () => () => {},
      measureProcessTrees: () => {},
    };
    await expect(plugin.initialize(context)).rejects.toSatisfy((error) =>
      WorkspaceError.isInstance(error, 'NOT_FOUND'),
    );
    await plugin.close();
  });
});

describe.skipIf(pythonSkipReason('python plugin (real IPython kernel)'))('python plugin', () => {
  let workDir: string;
  let stateDir: string;
  let monitor: MemoryMonitor;
  let plugin: RuntimePlugin;
  const watched: number[] = [];

  async function runIpython(
    args: Record<string, unknown>,
    timeoutMs = 20_000,
  ): Promise<IPythonRunCellObservationWire> {
    const action = { action: 'run_ipython', args };
    const handler = plugin.actions.run_ipython;
    if (!handler) throw new Error('no run_ipython action');
    const parsed = handler.args.parse(args);
    const signal = AbortSignal.timeout(timeoutMs);
    const observation = await handler.run(parsed, { signal, timeoutMs }, action);
    return ipythonRunCellObservationWireSchema.parse(observation);
  }

  beforeAll(async () => {
    workDir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'python-plugin-work-')));
    stateDir = await mkdtemp(path.join(os.tmpdir(), 'python-plugin-state-'));
    monitor = new MemoryMonitor({ limitBytes: MEMORY_LIMIT_BYTES, intervalMs: 50 });
    plugin = createPythonPlugin({ pythonPath: TEST_PYTHON });
    expect(
      (await checkRequirements(plugin.requirements, AbortSignal.timeout(30_000))).problems,
    ).toEqual([]);
    await plugin.initialize({
      workingDir: workDir,
      stateDir,
      logger: silentPluginLogger,
      signal: new AbortController().signal,
      watchProcessTree: (watch) => {
        watched.push(watch.pid);
        return monitor.watch(watch);
      },
      measureProcessTrees: () => monitor.sample(),
    });
  });

  afterAll(async () => {
    await plugin?.close();
    await monitor?.close();
    await rm(workDir, { recursive: true, force: true });
    await rm(stateDir, { recursive: true, force: true });
  });

  it('answers run_ipython with the output and OpenHands’ working directory and interpreter lines', async () => {
    expect(ipythonRunCellArgsSchema.parse({ code: 'x' }).include_extra).toBe(true);
    const observation = await runIpython({
      code: 'import os\nprint("hi")\nanswer = 42\nos.getcwd()',
    });
    expect(observation).toEqual({
      observation: 'run_ipython',
      content: `hi\n'${workDir}'\n[Jupyter current working directory: ${workDir}]\n[Jupyter Python interpreter: ${TEST_PYTHON}]`,
      extras: { code: 'import os\nprint("hi")\nanswer = 42\nos.getcwd()', image_urls: null },
    });
  });

  it('keeps state between actions and leaves the extra lines out without include_extra', async () => {
    const observation = await runIpython({ code: 'answer + 1', include_extra: false });
    expect(observation.content).toBe('43');
  });

  it('follows the kernel into another directory in the extra lines', async () => {
    const sub = path.join(workDir, 'sub');
    const observation = await runIpython({
      code: `os.makedirs(${JSON.stringify(sub)})\nos.chdir(${JSON.stringify(sub)})`,
    });
    // As in OpenHands, the lines follow the (here empty) output after a newline.
    expect(observation.content).toBe(
      `\n[Jupyter current working directory: ${sub}]\n[Jupyter Python interpreter: ${TEST_PYTHON}]`,
    );
    await runIpython({ code: `os.chdir(${JSON.stringify(workDir)})` });
  });

  it('answers images as image_urls', async () => {
    const png = tinyPng([0, 128, 255]).toString('base64');
    const observation = await runIpython({
      code: `import base64\nfrom IPython.display import Image\nImage(data=base64.b64decode("${png}"))`,
      include_extra: false,
    });
    expect(observation.extras.image_urls).toEqual([`data:image/png;base64,${png}`]);
    expect(observation.content).toBe('');
  });

  it('says a cell was interrupted at its time limit, and the state is kept', async () => {
    const observation = await runIpython(
      { code: 'import time\nwhile True:\n    time.sleep(0.01)', include_extra: false },
      1000,
    );
    expect(observation.content).toContain('KeyboardInterrupt');
    expect(observation.content).toMatch(
      /\[The cell was interrupted after 1 seconds: it ran past its time limit\]$/,
    );
    expect((await runIpython({ code: 'answer', include_extra: false })).content).toBe('42');
  });

  it('reports healthy with the kernel’s memory', async () => {
    const health = await plugin.health();
    expect(health.healthy).toBe(true);
    expect(health.memoryBytes).toBeGreaterThan(10 * 1024 ** 2);
  });

  it('says so when the kernel used more memory than the limit, and the next cell runs on a fresh kernel', async () => {
    const pid = watched.at(-1) as number;
    const observation = await runIpython(
      {
        // bytes(n) is calloc'd (untouched); multiplying writes every page.
        code: 'import time\nhog = b"x" * (600 * 1024 * 1024)\ntime.sleep(60)',
        include_extra: false,
      },
      60_000,
    );
    expect(observation.content).toMatch(
      /^\[The python kernel used \d+\.\d MiB, over the 300\.0 MiB limit, so it was stopped and its state \(variables, imports\) is lost; it will be restarted for the next cell\]$/,
    );
    await vi.waitFor(() => expect(isProcessRunning(pid)).toBe(false), WAIT);
    const next = await runIpython({ code: 'import os\nos.getcwd()' });
    expect(next.content).toBe(
      `'${workDir}'\n[Jupyter current working directory: ${workDir}]\n[Jupyter Python interpreter: ${TEST_PYTHON}]`,
    );
    expect(watched.at(-1)).not.toBe(pid);
    expect((await runIpython({ code: 'answer', include_extra: false })).content).toContain(
      "NameError: name 'answer' is not defined",
    );
  });

  it('closes idempotently and leaves no kernel behind', async () => {
    const pid = watched.at(-1) as number;
    expect(isProcessRunning(pid)).toBe(true);
    await Promise.all([plugin.close(), plugin.close()]);
    await vi.waitFor(() => expect(isProcessRunning(pid)).toBe(false), WAIT);
    expect((await plugin.health()).healthy).toBe(false);
    expect(monitor.report().trees).toEqual([]);
    await expect(runIpython({ code: '1' })).rejects.toSatisfy((error) =>
      WorkspaceError.isInstance(error, 'WORKSPACE_CLOSED'),
    );
  });
});

describe.skipIf(pythonSkipReason('python plugin in a PluginHost'))(
  'python plugin in a PluginHost',
  () => {
    it('runs run_ipython actions, and an action timeout interrupts the cell', async () => {
      const workingDir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'python-host-')));
      const plugin = createPythonPlugin({ pythonPath: TEST_PYTHON });
      const host = PluginHost.start({
        plugins: [plugin],
        workingDir,
        stateDir: path.join(workingDir, '.state'),
      });
      try {
        const first = await host.executeAction({
          action: 'run_ipython',
          args: { code: 'n = 6 * 7\nn' },
        });
        expect(first).toMatchObject({ observation: 'run_ipython' });
        expect(first.content).toMatch(/^42\n\[Jupyter current working directory: /);
        const [status] = await host.status();
        expect(status).toMatchObject({ name: 'python', state: 'ready', healthy: true });
        const slow = await host.executeAction({
          action: 'run_ipython',
          args: { code: 'import time\ntime.sleep(60)', include_extra: false },
          timeout: 1,
        });
        expect(slow.content).toMatch(
          /KeyboardInterrupt[\s\S]*\n\[The cell was interrupted after 1 seconds: it ran past its time limit\]$/,
        );
        const after = await host.executeAction({
          action: 'run_ipython',
          args: { code: 'n', include_extra: false },
        });
        expect(after.content).toBe('42');
        const [kernel] = host.memory.report().trees;
        expect(kernel?.label).toBe('python kernel');
        await host.close();
        expect(isProcessRunning(kernel?.pid as number)).toBe(false);
      } finally {
        await host.close();
        await rm(workingDir, { recursive: true, force: true });
      }
    });

    it('tells a cell that leaves its kernel over the memory limit, even between two samples', async () => {
      const workingDir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'python-host-')));
      // The timer never fires during the test: only the measure at the cell's end can see it.
      await using memory = new MemoryMonitor({
        limitBytes: MEMORY_LIMIT_BYTES,
        intervalMs: 3_600_000,
      });
      const host = PluginHost.start({
        plugins: [createPythonPlugin({ pythonPath: TEST_PYTHON })],
        workingDir,
        stateDir: path.join(workingDir, '.state'),
        memory,
      });
      try {
        const hog = await host.executeAction({
          action: 'run_ipython',
          args: { code: 'hog = b"x" * (600 * 1024 * 1024)\nlen(hog)', include_extra: false },
        });
        expect(hog.content).toMatch(
          /^629145600\n\[The python kernel used \d+\.\d MiB, over the 300\.0 MiB limit, so it was stopped and its state \(variables, imports\) is lost; it will be restarted for the next cell\]$/,
        );
        const next = await host.executeAction({
          action: 'run_ipython',
          args: { code: "'hog' in globals()", include_extra: false },
        });
        expect(next.content).toBe('False');
      } finally {
        await host.close();
        await rm(workingDir, { recursive: true, force: true });
      }
    });
  },
);
