import type { ActionWire } from '@agent-workspace/protocol';
import {
  MAX_ACTION_NAME_LENGTH,
  MAX_ACTION_TIMEOUT_SECONDS,
} from '@agent-workspace/protocol/constants';
import { invalidArgument } from '../errors/invalid-argument.js';

/**
 * Checks the shape and limits of an action before any workspace type sees it:
 * `INVALID_ARGUMENT` naming `action`, `action.action`, `action.args` or `action.timeout`.
 */
export function checkActionWire(action: ActionWire): void {
  if (typeof action !== 'object' || action === null || Array.isArray(action)) {
    throw invalidArgument('action', 'must be an object like {"action": "run_ipython", "args": {}}');
  }
  const { action: name, args, timeout } = action;
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_ACTION_NAME_LENGTH) {
    throw invalidArgument(
      'action.action',
      `must be a non-empty string of at most ${MAX_ACTION_NAME_LENGTH} characters`,
    );
  }
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    throw invalidArgument('action.args', 'must be an object');
  }
  if (
    timeout !== undefined &&
    timeout !== null &&
    (typeof timeout !== 'number' ||
      !Number.isFinite(timeout) ||
      timeout <= 0 ||
      timeout > MAX_ACTION_TIMEOUT_SECONDS)
  ) {
    throw invalidArgument(
      'action.timeout',
      `must be a number of seconds above 0 and at most ${MAX_ACTION_TIMEOUT_SECONDS}`,
    );
  }
}
