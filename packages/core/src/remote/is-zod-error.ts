/**
 * True for a zod validation error, told by its name and issues rather than `instanceof` so that
 * the caller does not load zod (the schema that threw did).
 */
export function isZodError(
  error: unknown,
): error is Error & { issues: Array<{ path: PropertyKey[]; message: string }> } {
  return (
    error instanceof Error &&
    error.name === 'ZodError' &&
    Array.isArray((error as { issues?: unknown }).issues)
  );
}
