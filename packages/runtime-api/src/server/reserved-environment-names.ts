/** Names (or, ending in `*`, prefixes) a `/start` environment may not set, and why. */
export interface ReservedEnvironmentName {
  /** An exact name, or a prefix ending in `*`; matched case-insensitively. */
  pattern: string;
  /** Names the pattern covers that stay allowed (exact, case-insensitive). */
  except?: readonly string[] | undefined;
  /** Why a client may not set it: the 422 says so. */
  reason: string;
}

const LOADER =
  'it makes the C library load code into every process of the sandbox, the agent-server included';
const SHELL =
  'it runs code in, or changes, every shell the agent-server starts before its command does';

/**
 * What a session's `environment` may not hold (case-insensitive): the agent-server's keys, and
 * whatever changes how the sandbox's own processes — its init, Node running the agent-server,
 * the shells the agent-server starts — load code or are configured, rather than what the agent's
 * commands see. Commands that need one of these set it per command (`executeCommand`'s `env`).
 * `NODE_ENV` (Node ignores it) and `NODE_EXTRA_CA_CERTS` (it only adds trusted CAs, for a
 * TLS-intercepting proxy) stay allowed. `PATH` stays allowed: the command sandbox finds its
 * tools in the system directories, never through it.
 */
export const RESERVED_ENVIRONMENT_NAMES: readonly ReservedEnvironmentName[] = [
  {
    pattern: 'SESSION_API_KEY*',
    reason: 'it carries the agent-server key, which only the Runtime API sets',
  },
  {
    pattern: 'OH_SESSION_API_KEYS_*',
    reason: 'it carries the agent-server key, which only the Runtime API sets',
  },
  {
    pattern: 'OH_ALLOW_CORS_ORIGINS_*',
    reason: 'it widens the browser origins the agent-server admits',
  },
  { pattern: 'DOCKER_HOST_ADDR', reason: 'it widens the browser origins the agent-server admits' },
  {
    pattern: 'AGENT_SERVER_*',
    reason: 'it configures the agent-server itself (AGENT_SERVER_WRITE_CODE_CACHE makes it exit)',
  },
  {
    pattern: 'AGENT_WORKSPACE_*',
    reason:
      'it configures the agent-server and its plugins (the programs they run; the projection this server sets)',
  },
  { pattern: 'LD_*', reason: LOADER },
  { pattern: 'GCONV_PATH', reason: LOADER },
  { pattern: 'GLIBC_TUNABLES', reason: 'it changes how the C library runs every process' },
  {
    pattern: 'NODE_*',
    except: ['NODE_ENV', 'NODE_EXTRA_CA_CERTS'],
    reason:
      'it changes how Node runs the agent-server (NODE_OPTIONS can load code or open a debugger)',
  },
  {
    pattern: 'OPENSSL_*',
    reason: 'it makes OpenSSL, in Node too, load modules named in a configuration',
  },
  { pattern: 'BASH_ENV', reason: SHELL },
  { pattern: 'ENV', reason: SHELL },
  { pattern: 'BASH_FUNC_*', reason: SHELL },
  { pattern: 'SHELLOPTS', reason: SHELL },
  { pattern: 'BASHOPTS', reason: SHELL },
  { pattern: 'TINI_*', reason: "it configures the sandbox's init process" },
];

/** Why `name` may not be set in a session's environment, or `undefined` when it may. */
export function reservedEnvironmentReason(name: string): string | undefined {
  const upper = name.toUpperCase();
  for (const { pattern, except, reason } of RESERVED_ENVIRONMENT_NAMES) {
    const matches = pattern.endsWith('*')
      ? upper.startsWith(pattern.slice(0, -1))
      : upper === pattern;
    if (matches && !except?.includes(upper)) return reason;
  }
  return undefined;
}
