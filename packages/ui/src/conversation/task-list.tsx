import type { TrackedTask } from './conversation-timeline.js';

/** Props of {@link TaskList}. */
export interface TaskListProps {
  readonly tasks: readonly TrackedTask[];
  /** The list's accessible name. */
  readonly label: string;
}

const STATUS_TEXT: Record<string, string> = {
  todo: 'To do',
  in_progress: 'In progress',
  done: 'Done',
};

/** The agent's tasks, each with its status in words. */
export function TaskList({ tasks, label }: TaskListProps) {
  return (
    <ul class="task-list" aria-label={label}>
      {tasks.map((task, index) => (
        <li key={index} class={`task task-${task.status}`}>
          <span class="task-status">{STATUS_TEXT[task.status] ?? task.status}</span>{' '}
          <span class="task-title">{task.title}</span>
          {task.notes && <span class="task-notes"> — {task.notes}</span>}
        </li>
      ))}
    </ul>
  );
}
