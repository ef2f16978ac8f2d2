import { z } from 'zod';
import type { Tool, ToolObservation } from './tool.js';
import { truncateForModel } from './truncate-for-model.js';

/** LLM-facing name of {@link TaskTrackerTool}. */
export const TASK_TRACKER_TOOL_NAME = 'task_tracker';
/** Most tasks one `plan` may hold. */
export const MAX_TRACKED_TASKS = 500;

const STATUS_ICONS = { todo: '⏳', in_progress: '🔄', done: '✅' } as const;

const DESCRIPTION = `This tool provides structured task management capabilities for development workflows.
It enables systematic tracking of work items, progress monitoring, and efficient organization of complex development activities.

Use it for multi-phase work, complex implementation tasks, several concurrent requirements, or when the user asks for structured task management. Do not use it for single atomic tasks, trivial operations or pure information exchange.

Status values: \`todo\` (not yet started), \`in_progress\` (currently active; keep a single task in progress), \`done\` (fully completed: never when tests fail, the implementation is incomplete or errors are unresolved).

\`view\` shows the current list; \`plan\` replaces it with \`task_list\` (the full list each time). Always \`view\` the current list before making changes. Update statuses as work progresses, and remove obsolete tasks.`;

/** One task, as OpenHands' `TaskItem` (plus an optional `id`). */
export const taskItemSchema = z.object({
  id: z.string().optional().describe('Optional stable identifier of the task.'),
  title: z.string().describe('A brief title for the task.'),
  notes: z.string().default('').describe('Additional details or notes about the task.'),
  status: z
    .enum(['todo', 'in_progress', 'done'])
    .default('todo')
    .describe("The current status of the task. One of 'todo', 'in_progress', or 'done'."),
});

/** One task of a {@link TaskTrackerTool} list. */
export type TaskItem = z.infer<typeof taskItemSchema>;

/** Arguments of {@link TaskTrackerTool}, as OpenHands' `TaskTrackerAction`. */
export const taskTrackerArgsSchema = z.object({
  command: z
    .enum(['view', 'plan'])
    .default('view')
    .describe(
      'The command to execute. `view` shows the current task list. `plan` creates or updates the task list based on provided requirements and progress. Always `view` the current list before making changes.',
    ),
  task_list: z
    .array(taskItemSchema)
    .max(MAX_TRACKED_TASKS)
    .default([])
    .describe('The full task list. Required parameter of `plan` command.'),
});

/** Arguments of {@link TaskTrackerTool} (after defaults). */
export type TaskTrackerArgs = z.infer<typeof taskTrackerArgsSchema>;

/**
 * OpenHands' `task_tracker`: `plan` replaces the task list kept in this instance, `view` shows
 * it. Nothing touches the workspace. The observation renders the list (`1. ⏳ title`, notes
 * below); `content` is `{ command, task_list }`.
 */
export class TaskTrackerTool implements Tool<TaskTrackerArgs> {
  readonly name = TASK_TRACKER_TOOL_NAME;
  readonly description = DESCRIPTION;
  readonly parameters = taskTrackerArgsSchema;
  #tasks: TaskItem[] = [];

  /** The current list (a copy). */
  get tasks(): TaskItem[] {
    return this.#tasks.map((task) => ({ ...task }));
  }

  async execute(args: TaskTrackerArgs): Promise<ToolObservation> {
    if (args.command === 'plan') {
      const ids = args.task_list.flatMap((task) => (task.id === undefined ? [] : [task.id]));
      const duplicate = ids.find((id, index) => ids.indexOf(id) !== index);
      if (duplicate !== undefined) {
        return {
          text: `The task list was not updated: the id \`${duplicate}\` is used by more than one task.`,
          content: { command: 'plan', task_list: this.tasks },
          isError: true,
        };
      }
      this.#tasks = args.task_list.map((task) => ({ ...task }));
      const summary = `Task list has been updated with ${this.#tasks.length} item(s).`;
      return this.#observation(
        'plan',
        this.#tasks.length === 0 ? summary : `${summary}\n\n${render(this.#tasks)}`,
      );
    }
    if (this.#tasks.length === 0) {
      return this.#observation('view', 'No task list found. Use the "plan" command to create one.');
    }
    return this.#observation('view', render(this.#tasks));
  }

  #observation(command: 'view' | 'plan', text: string): ToolObservation {
    return {
      text: truncateForModel(text),
      content: { command, task_list: this.tasks },
      isError: false,
    };
  }
}

/** OpenHands' rendering: `# Task List`, then `N. <icon> title` with notes indented below. */
function render(tasks: readonly TaskItem[]): string {
  const lines = tasks.map((task, index) => {
    const id = task.id === undefined ? '' : ` [${task.id}]`;
    const notes = task.notes === '' ? '' : `\n   ${task.notes}`;
    return `${index + 1}. ${STATUS_ICONS[task.status]}${id} ${task.title}${notes}`;
  });
  return `# Task List\n\n${lines.join('\n\n')}`;
}
