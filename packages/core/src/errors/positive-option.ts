import { invalidArgument } from './invalid-argument.js';

/**
 * Returns `value`, or `fallback` when it is undefined. Anything but a positive finite number is
 * an `INVALID_ARGUMENT` naming `field`.
 */
export function positiveOption(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw invalidArgument(field, `must be a positive finite number, got ${String(value)}`);
  }
  return value;
}
