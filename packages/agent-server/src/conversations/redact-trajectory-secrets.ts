import { REDACTED_SECRET_VALUE, TRAJECTORY_SECRET_FIELDS } from '@agent-workspace/protocol';

const SECRET_FIELDS = new Set(TRAJECTORY_SECRET_FIELDS.map((field) => field.toLowerCase()));

/**
 * Replaces, in place, every non-empty string under a secret field name
 * (`TRAJECTORY_SECRET_FIELDS`, any case) and every string containing one of `knownSecrets` (the
 * server's own session keys) with `REDACTED_SECRET_VALUE`, at any depth. Returns the value, which
 * is itself replaced when it is such a string.
 */
export function redactTrajectorySecrets(value: unknown, knownSecrets: readonly string[]): unknown {
  if (typeof value === 'string')
    return holdsKnownSecret(value, knownSecrets) ? REDACTED_SECRET_VALUE : value;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      value[index] = redactTrajectorySecrets(value[index], knownSecrets);
    }
    return value;
  }
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    for (const [key, field] of Object.entries(record)) {
      record[key] =
        SECRET_FIELDS.has(key.toLowerCase()) && typeof field === 'string' && field !== ''
          ? REDACTED_SECRET_VALUE
          : redactTrajectorySecrets(field, knownSecrets);
    }
  }
  return value;
}

/**
 * One JSON text with its secrets redacted, re-serialised; `undefined` when it is not JSON (the
 * caller leaves it out rather than pass on what it could not check).
 */
export function redactJsonText(text: string, knownSecrets: readonly string[]): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  return JSON.stringify(redactTrajectorySecrets(parsed, knownSecrets));
}

function holdsKnownSecret(value: string, knownSecrets: readonly string[]): boolean {
  return knownSecrets.some((secret) => value.includes(secret));
}
