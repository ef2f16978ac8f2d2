/** A failed request to the agent-server: its HTTP status (`null` when unreachable) and why. */
export class ApiError extends Error {
  readonly status: number | null;

  constructor(status: number | null, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }

  /** The server refused the session key. */
  get unauthorized(): boolean {
    return this.status === 401;
  }

  /** An error from a non-2xx response, with the server's `detail` when it gave one. */
  static async fromResponse(response: Response): Promise<ApiError> {
    if (response.status === 401) {
      return new ApiError(401, 'Wrong session API key: the server refused it (401).');
    }
    let detail = '';
    try {
      const body = (await response.json()) as { detail?: unknown };
      detail = typeof body.detail === 'string' ? body.detail : JSON.stringify(body.detail ?? '');
    } catch {
      // Not JSON: the status alone says enough.
    }
    const reason = detail ? `: ${detail}` : '.';
    return new ApiError(response.status, `The agent-server answered ${response.status}${reason}`);
  }
}
