import { RUNTIME_LABEL_PREFIX } from './session-labels.js';

/**
 * The session's own labels among an engine object's labels: a container also shows its image's
 * labels, which the session was not created with.
 */
export function ownLabels(labels: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(labels ?? {}).filter(([key]) => key.startsWith(RUNTIME_LABEL_PREFIX)),
  );
}
