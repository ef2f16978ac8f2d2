/**
 * Names of variables that hold a server's own keys: its session keys (`SESSION_API_KEY`, its
 * digest, `OH_SESSION_API_KEYS_<n>`), a Runtime API's key and session secret, and the model keys
 * the SDK reads for the server's conversations. No process a server starts on an agent's behalf
 * gets them.
 */
const SERVER_SECRET_VARIABLE =
  /^(?:SESSION_API_KEY(?:_SHA256)?|OH_SESSION_API_KEYS_.*|RUNTIME_API_KEY|RUNTIME_API_SESSION_SECRET|LLM_API_KEY|OPENAI_API_KEY|ANTHROPIC_API_KEY)$/;

/** True when `name` is a variable that holds a server's key (see {@link childEnvironment}). */
export function isServerSecretVariable(name: string): boolean {
  return SERVER_SECRET_VARIABLE.test(name);
}

/** Input of {@link childEnvironment}. */
export interface ChildEnvironmentOptions {
  /** The environment to start from. Default `process.env`. */
  base?: Readonly<Record<string, string | undefined>> | undefined;
  /** Variables merged over the scrubbed base (a caller's own `env`; they are not scrubbed). */
  extra?: Readonly<Record<string, string>> | undefined;
}

/**
 * The one environment scrubber of every child a server starts (commands, git, the IPython
 * kernel, the browser): `base` without the server's keys (`isServerSecretVariable`), with
 * `extra` merged over it.
 */
export function childEnvironment(options: ChildEnvironmentOptions = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.base ?? process.env)) {
    if (value !== undefined && !SERVER_SECRET_VARIABLE.test(name)) env[name] = value;
  }
  return Object.assign(env, options.extra);
}
