import {
  browserOutputObservationWireSchema,
  errorObservationWireSchema,
  ipythonRunCellObservationWireSchema,
  type ObservationWire,
} from '@agent-workspace/protocol';
import type { z } from 'zod';
import { WorkspaceError } from '../errors/workspace-error.js';
import type { BrowserObservation, IPythonObservation } from './runtime-actions.js';

/** `observation` as a browser answer (`browse` or `error`); anything else is `PROTOCOL_ERROR`. */
export function browserObservationOf(
  observation: ObservationWire,
  action: 'browse' | 'browse_interactive',
): BrowserObservation {
  return typed(observation, action, 'browse', browserOutputObservationWireSchema);
}

/** `observation` as an IPython answer (`run_ipython` or `error`); else `PROTOCOL_ERROR`. */
export function ipythonObservationOf(observation: ObservationWire): IPythonObservation {
  return typed(observation, 'run_ipython', 'run_ipython', ipythonRunCellObservationWireSchema);
}

function typed<T>(
  observation: ObservationWire,
  action: string,
  expected: string,
  schema: z.ZodType<T>,
): T | z.infer<typeof errorObservationWireSchema> {
  const type = observation.observation;
  if (type !== expected && type !== 'error') {
    throw new WorkspaceError({
      code: 'PROTOCOL_ERROR',
      message: `the ${action} action was answered with a ${JSON.stringify(type)} observation, not ${expected} or error`,
      details: { action, observation: type },
    });
  }
  const parsed = (type === 'error' ? errorObservationWireSchema : schema).safeParse(observation);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(observation)'}: ${issue.message}`,
    );
    throw new WorkspaceError({
      code: 'PROTOCOL_ERROR',
      message: `the ${action} action was answered with a malformed ${type} observation: ${issues.join('; ')}`,
      cause: parsed.error,
      details: { action, observation: type },
    });
  }
  return parsed.data;
}
