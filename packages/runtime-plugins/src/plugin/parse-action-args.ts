import { invalidArgument, type WorkspaceError } from '@agent-workspace/core';
import type { ActionWire } from '@agent-workspace/protocol';
import type { z } from 'zod';

/**
 * `action.args` checked against `schema`.
 *
 * @throws WorkspaceError `INVALID_ARGUMENT` naming the field from the action's root, e.g.
 * `action.args.url`.
 */
export function parseActionArgs<Schema extends z.ZodType>(
  schema: Schema,
  action: ActionWire,
): z.infer<Schema> {
  const parsed = schema.safeParse(action.args);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = ['action', 'args', ...(issue?.path ?? [])].join('.');
  throw invalidArgument(field, issue?.message ?? 'is invalid');
}

/** A plugin's argument error (`args.x ...`) named from the action's root (`action.args.x ...`). */
export function asActionArgument(error: WorkspaceError): WorkspaceError {
  const field = String(error.details.field ?? 'args');
  if (field.startsWith('action.')) return error;
  const reason = error.message.startsWith(field)
    ? error.message.slice(field.length).trim()
    : error.message;
  return invalidArgument(`action.${field}`, reason);
}
