/** The message of a failure, for showing. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
