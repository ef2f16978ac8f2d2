import { childEnvironment } from '@agent-workspace/core/internal';

/**
 * The environment a bash command gets: this process's environment without the server's keys
 * (core's one scrubber, `childEnvironment`), with `extra` merged over it.
 */
export function commandEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  return childEnvironment({ extra });
}
