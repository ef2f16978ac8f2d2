/** The `sessionStorage` slot holding the session API key for this tab. */
export const SESSION_KEY_STORAGE_NAME = 'agent-workspace.session-api-key';

/** Reads the session API key kept for this tab, or `''` when none is kept. */
export function loadSessionKey(): string {
  return sessionStorage.getItem(SESSION_KEY_STORAGE_NAME) ?? '';
}

/** Keeps the session API key for this tab only (never in a URL or localStorage). */
export function saveSessionKey(key: string): void {
  sessionStorage.setItem(SESSION_KEY_STORAGE_NAME, key);
}

/** Forgets the key kept for this tab. */
export function clearSessionKey(): void {
  sessionStorage.removeItem(SESSION_KEY_STORAGE_NAME);
}
