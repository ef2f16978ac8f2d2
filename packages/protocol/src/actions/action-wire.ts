import { z } from 'zod';
import { MAX_ACTION_NAME_LENGTH, MAX_ACTION_TIMEOUT_SECONDS } from './action-limits.js';

/**
 * An OpenHands action as `event_to_dict` writes it: `{"action": "run", "args": {...}}`, with an
 * optional hard `timeout` in seconds. Lenient: OpenHands' top-level event keys (`id`,
 * `timestamp`, `source`, `message`, ...) are accepted and ignored. The action's `args` are checked
 * against the schema of that action (see `ACTION_ARGS_SCHEMAS`) by whoever runs it.
 */
export const actionWireSchema = z.looseObject({
  action: z.string().min(1).max(MAX_ACTION_NAME_LENGTH),
  args: z.record(z.string(), z.unknown()).default({}),
  timeout: z.number().positive().max(MAX_ACTION_TIMEOUT_SECONDS).nullish(),
});

/** Wire JSON of an action. */
export type ActionWire = z.infer<typeof actionWireSchema>;

/** Body of `POST /execute_action`: OpenHands' `ActionRequest`. */
export const executeActionRequestWireSchema = z.looseObject({ action: actionWireSchema });

/** Wire JSON of an `/execute_action` request. */
export type ExecuteActionRequestWire = z.infer<typeof executeActionRequestWireSchema>;
