/** A bad flag, value or variable; the message names it (never a secret's value). Exit code 2. */
export class CliUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

/**
 * The `<prefix><n>` variables (OpenHands' list variables) that have a value, in numeric order of
 * `n`, as `[name, value]` pairs.
 */
export function indexedEnv(env: NodeJS.ProcessEnv, prefix: string): [string, string][] {
  return Object.entries(env)
    .flatMap(([name, value]) => {
      const index = name.startsWith(prefix) ? name.slice(prefix.length) : '';
      return /^\d+$/.test(index) && value ? [[Number(index), name, value] as const] : [];
    })
    .sort(([a], [b]) => a - b)
    .map(([, name, value]) => [name, value]);
}

/** Parses a non-negative integer flag value within bounds. */
export function integerFlag(flag: string, value: string, min: number, max: number): number {
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(parsed >= min && parsed <= max)) {
    throw new CliUsageError(`${flag} must be an integer from ${min} to ${max}, got '${value}'`);
  }
  return parsed;
}

/** Parses a non-negative decimal flag value (fractions allowed); `what` names the unit. */
export function decimalFlag(flag: string, value: string, what = 'a number'): number {
  const parsed = /^\d+(?:\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(parsed)) throw new CliUsageError(`${flag} must be ${what}, got '${value}'`);
  return parsed;
}

/** Rejects an empty string value of `flag`. */
export function nonEmpty(flag: string, value: string): string {
  if (value === '') throw new CliUsageError(`${flag} must not be empty`);
  return value;
}
