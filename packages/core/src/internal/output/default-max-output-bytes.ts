/** Default cap on captured bytes per output stream of a command (10 MiB); the tail is kept. */
export const DEFAULT_MAX_OUTPUT_BYTES = 10 * 1024 * 1024;
