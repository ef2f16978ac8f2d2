import { z } from 'zod';

/** 32 lowercase hex digits: how OpenHands serialises `OpenHandsUUID` (bash event ids). */
export const hexIdSchema = z
  .string()
  .regex(/^[0-9a-f]{32}$/, 'Expected a 32-character lowercase hex id');

/**
 * A UUID as path and query parameters accept it: 32 hex digits or the dashed 8-4-4-4-12 form,
 * in either case. Normalise with {@link normalizeHexId}.
 */
export const hexIdInputSchema = z
  .string()
  .regex(
    /^(?:[0-9a-fA-F]{32}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/,
    'Expected a UUID (32 hex digits, with or without dashes)',
  );

/** Turns a dashed or undashed UUID into the 32-lowercase-hex form. Throws a `ZodError` otherwise. */
export function normalizeHexId(input: string): string {
  return hexIdInputSchema.parse(input).replaceAll('-', '').toLowerCase();
}

/** A new random (v4) id in the 32-lowercase-hex form. */
export function newHexId(): string {
  return globalThis.crypto.randomUUID().replaceAll('-', '');
}
