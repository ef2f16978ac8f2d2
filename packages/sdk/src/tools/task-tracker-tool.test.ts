import { describe, expect, it } from 'vitest';
import { TaskTrackerTool, taskTrackerArgsSchema } from './task-tracker-tool.js';

/** Runs one call with arguments checked by the tool's own schema, as the agent does. */
function call(tracker: TaskTrackerTool, args: unknown) {
  return tracker.execute(taskTrackerArgsSchema.parse(args));
}

describe('TaskTrackerTool', () => {
  it('says there is no list before the first plan', async () => {
    const result = await call(new TaskTrackerTool(), { command: 'view' });
    expect(result.isError).toBe(false);
    expect(result.text).toBe('No task list found. Use the "plan" command to create one.');
    expect(result.content).toEqual({ command: 'view', task_list: [] });
  });

  it('plans a list, renders it, and shows it on view', async () => {
    const tracker = new TaskTrackerTool();
    const planned = await call(tracker, {
      command: 'plan',
      task_list: [
        { title: 'Read the code', status: 'done' },
        { id: 'tests', title: 'Write tests', notes: 'terminal first', status: 'in_progress' },
        { title: 'Ship' },
      ],
    });
    const rendered = [
      '# Task List',
      '',
      '1. ✅ Read the code',
      '',
      '2. 🔄 [tests] Write tests',
      '   terminal first',
      '',
      '3. ⏳ Ship',
    ].join('\n');
    expect(planned.text).toBe(`Task list has been updated with 3 item(s).\n\n${rendered}`);
    expect(planned.content.task_list).toEqual([
      { title: 'Read the code', notes: '', status: 'done' },
      { id: 'tests', title: 'Write tests', notes: 'terminal first', status: 'in_progress' },
      { title: 'Ship', notes: '', status: 'todo' },
    ]);
    const viewed = await call(tracker, {});
    expect(viewed.text).toBe(rendered);
    expect(viewed.content.command).toBe('view');
  });

  it('replaces the whole list on each plan, and empties it with an empty plan', async () => {
    const tracker = new TaskTrackerTool();
    await call(tracker, { command: 'plan', task_list: [{ title: 'a' }, { title: 'b' }] });
    await call(tracker, { command: 'plan', task_list: [{ title: 'c', status: 'done' }] });
    expect(tracker.tasks).toEqual([{ title: 'c', notes: '', status: 'done' }]);
    const emptied = await call(tracker, { command: 'plan', task_list: [] });
    expect(emptied.text).toBe('Task list has been updated with 0 item(s).');
    expect((await call(tracker, { command: 'view' })).text).toMatch(/^No task list found/);
  });

  it('refuses a plan that repeats an id and keeps the old list', async () => {
    const tracker = new TaskTrackerTool();
    await call(tracker, { command: 'plan', task_list: [{ title: 'keep' }] });
    const result = await call(tracker, {
      command: 'plan',
      task_list: [
        { id: 'x', title: 'one' },
        { id: 'x', title: 'two' },
      ],
    });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('the id `x` is used by more than one task');
    expect(tracker.tasks.map((task) => task.title)).toEqual(['keep']);
  });

  it('refuses a status OpenHands does not know', () => {
    expect(
      taskTrackerArgsSchema.safeParse({
        command: 'plan',
        task_list: [{ title: 'a', status: 'blocked' }],
      }).success,
    ).toBe(false);
  });

  it('keeps a list per instance', async () => {
    const first = new TaskTrackerTool();
    await call(first, { command: 'plan', task_list: [{ title: 'mine' }] });
    expect((await call(new TaskTrackerTool(), { command: 'view' })).text).toMatch(
      /^No task list found/,
    );
  });
});
