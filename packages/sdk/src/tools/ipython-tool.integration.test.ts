import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PluginHost } from '@agent-workspace/runtime-plugins';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestPluginHost } from '../test-support/test-plugin-host.js';
import { toolTempWorkspace } from '../test-support/tool-temp-workspace.js';
import { IPythonTool, ipythonArgsSchema } from './ipython-tool.js';

const fixture = await startTestPluginHost('IPythonTool (real IPython kernel)', ['python']);
afterAll(() => fixture.close());

describe('IPythonTool without a python plugin', () => {
  it('is unavailable, with why, when nothing runs plugins or the plugin is not enabled', async () => {
    await using t = await toolTempWorkspace();
    const tool = new IPythonTool();
    expect(await tool.available(t.context)).toEqual({
      available: false,
      reason: expect.stringContaining('runs no runtime plugins'),
    });
    await using empty = PluginHost.start({ plugins: [], workingDir: t.dir });
    expect(await tool.available({ ...t.context, actions: empty })).toEqual({
      available: false,
      reason: expect.stringContaining('--plugin python'),
    });
    const result = await tool.execute({ code: '1 + 1' }, t.context);
    expect(result.isError).toBe(true);
    expect(result.text).toContain('Python is not available here');
  });

  it('takes OpenHands` shape: one code string', () => {
    expect(ipythonArgsSchema.safeParse({ code: 'print(1)' }).success).toBe(true);
    expect(ipythonArgsSchema.safeParse({}).success).toBe(false);
    expect(new IPythonTool()).toMatchObject({
      name: 'execute_ipython_cell',
      specName: 'IPythonTool',
      runtimePlugins: ['python'],
    });
  });
});

describe.skipIf(fixture.skip)('IPythonTool on a real kernel', () => {
  it('is available where the executor runs the python plugin', async () => {
    expect(await new IPythonTool().available(fixture.context)).toEqual({ available: true });
  });

  it('runs cells in one kernel that keeps its variables, in the workspace directory', async () => {
    const tool = new IPythonTool();
    const first = await tool.execute(
      { code: 'numbers = [3, 4, 5]\nsum(numbers)' },
      fixture.context,
    );
    expect(first.isError).toBe(false);
    expect(first.text).toContain('12');
    expect(first.text).toContain(`[Jupyter current working directory: ${fixture.dir}]`);
    const second = await tool.execute(
      { code: "open('total.txt', 'w').write(str(sum(numbers) * 2))" },
      fixture.context,
    );
    expect(second.isError).toBe(false);
    expect(await readFile(path.join(fixture.dir, 'total.txt'), 'utf8')).toBe('24');
    expect(second.content).toMatchObject({
      code: "open('total.txt', 'w').write(str(sum(numbers) * 2))",
      observation: { observation: 'run_ipython', extras: { image_urls: null } },
    });
  });

  it('shows an exception of the cell to the model as its output', async () => {
    const result = await new IPythonTool().execute(
      { code: 'raise ValueError("bad number")' },
      fixture.context,
    );
    expect(result.isError).toBe(false);
    expect(result.text).toContain('ValueError');
    expect(result.text).toContain('bad number');
  });
});
