import { statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type AgentServerOptions, logLevelSchema } from '../agent-server-options.js';
import {
  DEFAULT_CONVERSATION_MAX_DISK_BYTES,
  DEFAULT_CONVERSATION_MAX_EVENT_BYTES,
  DEFAULT_CONVERSATION_MAX_MEMORY_BYTES,
  MIN_CONVERSATION_MAX_EVENT_BYTES,
} from '../conversations/conversation-service-options.js';
import { CliUsageError, decimalFlag, indexedEnv, integerFlag, nonEmpty } from './cli-flags.js';

export { CliUsageError } from './cli-flags.js';

/**
 * What the command line asks for. `warnings` of `serve` are for standard error (one line each,
 * before the server starts); none of them contains a key.
 */
export type CliCommand =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'serve'; options: AgentServerOptions; warnings: string[] };

/** The warning of a key given with `--session-api-key`: the flag shows it to every `ps`. */
export const SESSION_API_KEY_FLAG_WARNING =
  '--session-api-key exposes the key in the process list (ps, /proc/<pid>/cmdline); set SESSION_API_KEY in the environment instead';

/** `agent-server --help` text. */
export const CLI_USAGE = `Usage: agent-server [options]

Runs the agent-workspace agent-server (OpenHands-compatible HTTP/WebSocket API).

Options:
  --host <host>                Interface to listen on (default 127.0.0.1)
  --port <port>                Port to listen on, 0 picks a free one (default 8000)
  --working-dir <dir>          Default cwd and base of relative paths (default: cwd)
  --session-api-key <key>      Another accepted X-Session-API-Key; repeatable. Prefer the
                               SESSION_API_KEY variable: a flag shows the key to anyone who
                               can list processes (default: no auth)
  --state-dir <dir>            Where bash event history is persisted (default: memory only)
  --log-level <level>          fatal, error, warn, info, debug, trace or silent (default info)
  --confine-to-working-dir     Reject file, git and cwd paths outside the working directory
  --sandbox                    Run commands and git in a bubblewrap sandbox that sees only the
                               working directory and the system (read-only); implies
                               --confine-to-working-dir (Linux, needs bubblewrap)
  --no-sandbox-network         Commands in the sandbox get no network
  --allow-host <host[:port]>   Egress allow-list: sandboxed commands, the kernel and the browser
                               reach only these hosts, through the server's HTTP/HTTPS proxy
                               (ports 80 and 443 without a port); repeatable; implies --sandbox
  --sandbox-read-only <path>   More host paths the sandbox sees read-only; repeatable
  --sandbox-writable <path>    More host paths the sandbox sees read-write; repeatable
  --runtime-dir <dir>          Where the server journals what it owns, for clean-up after a
                               crash (default $XDG_RUNTIME_DIR/agent-server or /tmp/agent-server-<uid>)
  --max-upload-bytes <n>       Largest accepted upload in bytes (default 1073741824); also the
                               most file bytes of one extracted directory archive
  --max-archive-entries <n>    Most entries of one extracted directory archive (default 1000000)
  --max-connections <n>        Most open client connections; past it the oldest idle one is
                               closed (default: (ulimit -n - 64) / 2, from 16 to 1000)
  --max-concurrent-commands <n>  Most commands running at once; more get 429 (default 200)
  --max-command-history-bytes <n>  Event bytes kept per command; oldest dropped (default 16777216)
  --max-history-bytes <n>      Event bytes kept in all (default 268435456)
  --request-timeout-seconds <s>  Longest a whole request may take to arrive (default 600)
  --body-idle-timeout-seconds <s>  Longest a request body may stall (default 30)
  --orphaned-command-grace-seconds <s>  How long a command whose client left runs on (default 60)
  --git-search-max-depth <n>   How deep /api/git/changes looks for nested repositories (default 6)
  --git-search-max-repositories <n>  Most nested repositories it scans (default 100)
  --git-search-max-directories <n>  Most directories it reads looking for them (default 20000)
  --git-search-timeout-seconds <s>  Longest it looks for and scans them (default 5)
  --allow-cors-origin <origin> Extra CORS origin besides localhost; repeatable
  --plugin <name>              Start a runtime plugin: browser, python, or an installed package
                               exporting one; repeatable (default: none)
  --plugin-start-timeout-seconds <s>  Longest a plugin may take to start (default 120)
  --action-timeout-seconds <s> Time an /execute_action action gets without its own (default 120)
  --process-tree-memory-limit-bytes <n>  Kill a command, kernel or browser whose processes use
                               more resident memory (default: measure only)
  --conversation-max-event-bytes <n>   Largest conversation event; bigger ones are cut with a
                               marker (default 262144, at least 16384)
  --conversation-max-memory-bytes <n>  Event bytes a loaded conversation keeps in memory
                               (default 8388608)
  --conversation-max-disk-bytes <n>    Bytes of a conversation's event file; oldest events are
                               dropped past it (default 67108864)
  --max-loaded-conversations <n>  Idle persisted conversations kept loaded (default 32)
  --no-extensions              Serve and announce only the plain OpenHands protocol
  --no-ui                      Do not serve the web page at / (/ answers the server info)
  --defer-init                 Start dormant for a warm pool: /api routes, /execute_action and
                               the websockets answer 503 until POST /api/init (X-Init-API-Key:
                               a start-up session key, if any) delivers the session keys
  -h, --help                   Show this help
  -v, --version                Show the version

Environment:
  SESSION_API_KEY                            An accepted X-Session-API-Key (preferred to the flag)
  OH_SESSION_API_KEYS_<n>                    More accepted session API keys
  SESSION_API_KEY_SHA256                     SHA-256 (hex) of an accepted key, for launchers that
                                             must not show the key itself (Runtime API sessions)
  OH_ALLOW_CORS_ORIGINS_<n>                  More CORS origins
  OH_DEFERRED_INIT                           true or false: OpenHands' spelling of --defer-init
  DOCKER_HOST_ADDR                           A host whose origins CORS always allows
  AGENT_SERVER_BUILD_GIT_SHA, AGENT_SERVER_BUILD_GIT_REF   Reported by /server_info
`;

/** A SHA-256 digest given in `variable`: 64 hex digits. */
function sha256Digest(variable: string, value: string): string {
  if (!/^[0-9a-fA-F]{64}$/.test(value)) {
    throw new CliUsageError(`${variable} must be a SHA-256 digest (64 hex digits)`);
  }
  return value;
}

/** `OH_DEFERRED_INIT` read as pydantic reads a boolean (OpenHands' `deferred_init`). */
function deferredInitEnv(value: string | undefined): boolean {
  const text = value?.trim().toLowerCase() ?? '';
  if (['', '0', 'false', 'f', 'no', 'n', 'off'].includes(text)) return false;
  if (['1', 'true', 't', 'yes', 'y', 'on'].includes(text)) return true;
  throw new CliUsageError(`OH_DEFERRED_INIT must be true or false, got '${value}'`);
}

/**
 * Parses the `agent-server` command line (without `node` and the script) and the environment
 * into a command. Throws {@link CliUsageError} naming the flag for unknown flags, missing or
 * invalid values, and a `--working-dir` that is not an existing directory.
 */
export function parseCliArgs(args: readonly string[], env: NodeJS.ProcessEnv): CliCommand {
  let values: ReturnType<typeof parse>['values'];
  try {
    // `pnpm agent-server -- --port 9000` passes the `--` through.
    ({ values } = parse(args[0] === '--' ? args.slice(1) : args));
  } catch (error) {
    throw new CliUsageError((error as Error).message);
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };

  const workingDir = path.resolve(nonEmpty('--working-dir', values['working-dir'] ?? '.'));
  if (!statSync(workingDir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new CliUsageError(`--working-dir must be an existing directory, got '${workingDir}'`);
  }
  const logLevel = values['log-level'] ?? 'info';
  const level = logLevelSchema.safeParse(logLevel);
  if (!level.success) {
    const levels = logLevelSchema.options.join(', ');
    throw new CliUsageError(`--log-level must be one of ${levels}, got '${logLevel}'`);
  }
  const stateDir = values['state-dir'];
  const flagKeys = values['session-api-key'] ?? [];
  const options: AgentServerOptions = {
    host: nonEmpty('--host', values.host ?? '127.0.0.1'),
    port: integerFlag('--port', values.port ?? '8000', 0, 65_535),
    workingDir,
    sessionApiKeys: [
      ...flagKeys.map((key) => nonEmpty('--session-api-key', key)),
      ...(env.SESSION_API_KEY ? [env.SESSION_API_KEY] : []),
      ...indexedEnv(env, 'OH_SESSION_API_KEYS_').map(([, value]) => value),
    ],
    sessionApiKeyHashes: env.SESSION_API_KEY_SHA256
      ? [sha256Digest('SESSION_API_KEY_SHA256', env.SESSION_API_KEY_SHA256)]
      : [],
    ...(stateDir !== undefined && { stateDir: path.resolve(nonEmpty('--state-dir', stateDir)) }),
    logLevel: level.data,
    confineToWorkingDir: values['confine-to-working-dir'] ?? false,
    allowCorsOrigins: [
      ...(values['allow-cors-origin'] ?? []).map((origin) =>
        nonEmpty('--allow-cors-origin', origin),
      ),
      ...indexedEnv(env, 'OH_ALLOW_CORS_ORIGINS_').map(([, value]) => value),
    ],
    extensions: values.extensions ?? true,
    ui: values.ui ?? true,
    ...((values['defer-init'] ?? deferredInitEnv(env.OH_DEFERRED_INIT)) && { deferInit: true }),
    plugins: (values.plugin ?? []).map((plugin) => nonEmpty('--plugin', plugin)),
  };
  const allowHosts = values['allow-host']?.map((host) => nonEmpty('--allow-host', host));
  if (allowHosts !== undefined && values['sandbox-network'] === false) {
    throw new CliUsageError('--allow-host and --no-sandbox-network exclude each other');
  }
  const sandboxed = values.sandbox === true || allowHosts !== undefined;
  const sandboxFlags = ['sandbox-network', 'sandbox-read-only', 'sandbox-writable'] as const;
  for (const flag of sandboxFlags) {
    if (!sandboxed && values[flag] !== undefined) {
      throw new CliUsageError(
        `--${flag === 'sandbox-network' ? 'no-' : ''}${flag} needs --sandbox`,
      );
    }
  }
  if (sandboxed) {
    options.sandbox = {
      network: values['sandbox-network'] ?? true,
      readOnlyPaths: absolutePaths('--sandbox-read-only', values['sandbox-read-only']),
      writablePaths: absolutePaths('--sandbox-writable', values['sandbox-writable']),
      ...(allowHosts !== undefined && { allowHosts }),
    };
  }
  const runtimeDir = values['runtime-dir'];
  if (runtimeDir !== undefined)
    options.runtimeDir = path.resolve(nonEmpty('--runtime-dir', runtimeDir));
  for (const [flag, key] of INTEGER_FLAGS) {
    const value = values[flag];
    if (value !== undefined) {
      options[key] = integerFlag(`--${flag}`, value, 1, Number.MAX_SAFE_INTEGER);
    }
  }
  const history = {
    event: options.conversationMaxEventBytes ?? DEFAULT_CONVERSATION_MAX_EVENT_BYTES,
    memory: options.conversationMaxMemoryBytes ?? DEFAULT_CONVERSATION_MAX_MEMORY_BYTES,
    disk: options.conversationMaxDiskBytes ?? DEFAULT_CONVERSATION_MAX_DISK_BYTES,
  };
  if (history.event < MIN_CONVERSATION_MAX_EVENT_BYTES) {
    throw new CliUsageError(
      `--conversation-max-event-bytes must be at least ${MIN_CONVERSATION_MAX_EVENT_BYTES}`,
    );
  }
  if (history.memory < history.event) {
    throw new CliUsageError(
      `--conversation-max-memory-bytes must be at least --conversation-max-event-bytes (${history.event})`,
    );
  }
  if (history.disk < history.memory) {
    throw new CliUsageError(
      `--conversation-max-disk-bytes must be at least --conversation-max-memory-bytes (${history.memory})`,
    );
  }
  for (const [flag, key] of SECONDS_FLAGS) {
    const value = values[flag];
    if (value !== undefined) options[key] = decimalFlag(`--${flag}`, value, 'a number of seconds');
  }
  return {
    kind: 'serve',
    options,
    warnings: flagKeys.length > 0 ? [SESSION_API_KEY_FLAG_WARNING] : [],
  };
}

/** Integer flags and the options they set. */
const INTEGER_FLAGS = [
  ['max-upload-bytes', 'maxUploadBytes'],
  ['max-archive-entries', 'maxArchiveEntries'],
  ['max-connections', 'maxConnections'],
  ['max-concurrent-commands', 'maxConcurrentCommands'],
  ['max-command-history-bytes', 'maxCommandHistoryBytes'],
  ['max-history-bytes', 'bashEventMaxBytes'],
  ['git-search-max-depth', 'gitSearchMaxDepth'],
  ['git-search-max-repositories', 'gitSearchMaxRepositories'],
  ['git-search-max-directories', 'gitSearchMaxDirectories'],
  ['process-tree-memory-limit-bytes', 'processTreeMemoryLimitBytes'],
  ['conversation-max-event-bytes', 'conversationMaxEventBytes'],
  ['conversation-max-memory-bytes', 'conversationMaxMemoryBytes'],
  ['conversation-max-disk-bytes', 'conversationMaxDiskBytes'],
  ['max-loaded-conversations', 'maxLoadedConversations'],
] as const;

/** Flags in seconds and the options they set. */
const SECONDS_FLAGS = [
  ['request-timeout-seconds', 'requestTimeoutSeconds'],
  ['body-idle-timeout-seconds', 'bodyIdleTimeoutSeconds'],
  ['orphaned-command-grace-seconds', 'orphanedCommandGraceSeconds'],
  ['git-search-timeout-seconds', 'gitSearchTimeoutSeconds'],
  ['plugin-start-timeout-seconds', 'pluginStartTimeoutSeconds'],
  ['action-timeout-seconds', 'actionTimeoutSeconds'],
] as const;

/** Resolves the values of a repeatable path flag against the current directory. */
function absolutePaths(flag: string, values: string[] | undefined): string[] {
  return (values ?? []).map((value) => path.resolve(nonEmpty(flag, value)));
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: false,
    allowNegative: true,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'working-dir': { type: 'string' },
      'session-api-key': { type: 'string', multiple: true },
      'state-dir': { type: 'string' },
      'log-level': { type: 'string' },
      'confine-to-working-dir': { type: 'boolean' },
      'max-upload-bytes': { type: 'string' },
      'max-archive-entries': { type: 'string' },
      'allow-cors-origin': { type: 'string', multiple: true },
      extensions: { type: 'boolean' },
      ui: { type: 'boolean' },
      'defer-init': { type: 'boolean' },
      sandbox: { type: 'boolean' },
      'sandbox-network': { type: 'boolean' },
      'sandbox-read-only': { type: 'string', multiple: true },
      'sandbox-writable': { type: 'string', multiple: true },
      'allow-host': { type: 'string', multiple: true },
      'runtime-dir': { type: 'string' },
      'max-connections': { type: 'string' },
      'max-concurrent-commands': { type: 'string' },
      'max-command-history-bytes': { type: 'string' },
      'max-history-bytes': { type: 'string' },
      'request-timeout-seconds': { type: 'string' },
      'body-idle-timeout-seconds': { type: 'string' },
      'orphaned-command-grace-seconds': { type: 'string' },
      'git-search-max-depth': { type: 'string' },
      'git-search-max-repositories': { type: 'string' },
      'git-search-max-directories': { type: 'string' },
      'git-search-timeout-seconds': { type: 'string' },
      plugin: { type: 'string', multiple: true },
      'plugin-start-timeout-seconds': { type: 'string' },
      'action-timeout-seconds': { type: 'string' },
      'process-tree-memory-limit-bytes': { type: 'string' },
      'conversation-max-event-bytes': { type: 'string' },
      'conversation-max-memory-bytes': { type: 'string' },
      'conversation-max-disk-bytes': { type: 'string' },
      'max-loaded-conversations': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
}
