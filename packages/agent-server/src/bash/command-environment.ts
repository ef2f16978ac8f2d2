/** Server variables that hold session keys; commands never see them. */
const SECRET_VARIABLE = /^(?:SESSION_API_KEY(?:_SHA256)?|OH_SESSION_API_KEYS_.*)$/;

/**
 * The environment a bash command gets: this process's environment without the session API keys
 * (`SESSION_API_KEY`, `OH_SESSION_API_KEYS_*`), with `extra` merged over it.
 */
export function commandEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !SECRET_VARIABLE.test(name)) env[name] = value;
  }
  return Object.assign(env, extra);
}
