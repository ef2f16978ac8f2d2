import { WorkspaceError } from '@agent-workspace/core';
import { describe, expect, it } from 'vitest';
import { toolTempWorkspace } from '../test-support/tool-temp-workspace.js';
import { BrowserTool } from './browser-tool.js';
import { createTool, createTools, TOOL_NAMES } from './create-tools.js';
import { FileEditorTool } from './file-editor-tool.js';
import { FINISH_TOOL_NAME, FinishTool, isFinishTool } from './finish-tool.js';
import { IPythonTool } from './ipython-tool.js';
import { TaskTrackerTool } from './task-tracker-tool.js';
import { TerminalTool } from './terminal-tool.js';

describe('createTools', () => {
  it('builds the tools of an OpenHands agent JSON, adding finish', () => {
    const agent = JSON.parse(
      '{"tools": [{"name": "TerminalTool"}, {"name": "FileEditorTool", "params": {}}, {"name": "TaskTrackerTool"}]}',
    ) as { tools: { name: string }[] };
    const tools = createTools(agent.tools);
    expect(tools.map((tool) => tool.name)).toEqual([
      'terminal',
      'file_editor',
      'task_tracker',
      'finish',
    ]);
    expect(tools[0]).toBeInstanceOf(TerminalTool);
    expect(tools[1]).toBeInstanceOf(FileEditorTool);
    expect(tools[2]).toBeInstanceOf(TaskTrackerTool);
    expect(tools[3]).toBeInstanceOf(FinishTool);
  });

  it('builds the runtime plugin tools by their OpenHands spec names', () => {
    const tools = createTools(['BrowserTool', 'IPythonTool'], { includeFinish: false });
    expect(tools.map((tool) => [tool.name, tool.runtimePlugins])).toEqual([
      ['browser', ['browser']],
      ['execute_ipython_cell', ['python']],
    ]);
    expect(tools[0]).toBeInstanceOf(BrowserTool);
    expect(tools[1]).toBeInstanceOf(IPythonTool);
  });

  it('builds fresh instances on every call', async () => {
    await using t = await toolTempWorkspace();
    const [first] = createTools(['TerminalTool']) as [TerminalTool];
    const [second] = createTools(['TerminalTool']) as [TerminalTool];
    expect(first).not.toBe(second);
    await first.execute({ command: 'mkdir d && cd d' }, t.context);
    expect(first.cwd).toBeDefined();
    expect(second.cwd).toBeUndefined();
  });

  it('does not add finish twice, and leaves it out on request', () => {
    expect(createTools(['FinishTool', 'TerminalTool']).map((tool) => tool.name)).toEqual([
      'finish',
      'terminal',
    ]);
    expect(
      createTools(['TerminalTool'], { includeFinish: false }).map((tool) => tool.name),
    ).toEqual(['terminal']);
    expect(createTools([]).map((tool) => tool.name)).toEqual(['finish']);
  });

  it('refuses an unknown name, naming it and the known ones', () => {
    let error: unknown;
    try {
      createTools([{ name: 'TerminalTool' }, { name: 'BrowserToolSet' }]);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WorkspaceError);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((error as Error).message).toContain('"BrowserToolSet"');
    expect((error as Error).message).toContain(TOOL_NAMES.join(', '));
  });

  it('refuses a name listed twice', () => {
    expect(() => createTools(['TerminalTool', { name: 'TerminalTool' }])).toThrow(
      /lists TerminalTool twice/,
    );
  });

  it('passes the working directory to the file editor', () => {
    const editor = createTool('FileEditorTool', { workingDir: '/srv/app' });
    expect(editor.description).toContain('Your current working directory is: /srv/app');
  });
});

describe('FinishTool', () => {
  it('echoes the message and is recognised by name', async () => {
    const finish = createTool({ name: 'FinishTool' });
    expect(finish.name).toBe(FINISH_TOOL_NAME);
    expect(isFinishTool(finish)).toBe(true);
    expect(isFinishTool(new TerminalTool())).toBe(false);
    const result = await (finish as FinishTool).execute({ message: 'Done: 3 files changed.' });
    expect(result).toEqual({
      text: 'Done: 3 files changed.',
      content: { message: 'Done: 3 files changed.' },
      isError: false,
    });
  });
});
