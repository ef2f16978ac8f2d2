/** `detail` values with which servers and proxies refuse the caller rather than the file. */
const AUTH_DETAILS = new Set(['Unauthorized', 'Forbidden', 'Not authenticated', '']);

/**
 * True when a file route's error status is about the file itself (a result, not an exception):
 * 400, 404, 409, 413, or a 403 whose detail is not a plain auth refusal (the server's
 * path confinement or a permission problem).
 */
export function isFileFailureStatus(status: number, detail: string): boolean {
  if (status === 403) return !AUTH_DETAILS.has(detail);
  return status === 400 || status === 404 || status === 409 || status === 413;
}
