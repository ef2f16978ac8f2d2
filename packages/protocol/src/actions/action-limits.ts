/** Longest action name a client may send. */
export const MAX_ACTION_NAME_LENGTH = 64;

/** Longest `timeout` of an action, in seconds (one hour). */
export const MAX_ACTION_TIMEOUT_SECONDS = 3600;

/** Largest IPython cell, in characters. */
export const MAX_IPYTHON_CODE_CHARS = 512 * 1024;

/** Largest BrowserGym action string of a `browse_interactive` action, in characters. */
export const MAX_BROWSER_ACTIONS_CHARS = 64 * 1024;

/** Longest URL a `browse` action may visit, in characters. */
export const MAX_BROWSE_URL_CHARS = 8 * 1024;

/**
 * Largest file content a `write` or `edit` action may carry, in characters; the JSON body of
 * `/execute_action` is capped at 1 MiB as a whole. Larger files go through the upload route.
 */
export const MAX_ACTION_FILE_TEXT_CHARS = 960 * 1024;
