import { parseArgs } from 'node:util';
import {
  CliUsageError,
  decimalFlag,
  indexedEnv,
  integerFlag,
  nonEmpty,
} from '@agent-workspace/agent-server/http';
import {
  RUNTIME_API_SERVER_DEFAULTS as DEFAULTS,
  MIN_API_KEY_LENGTH,
  MIN_SESSION_KEY_SECRET_LENGTH,
  type RuntimeApiServerOptions,
  runtimeApiLogLevelSchema,
} from '../server/runtime-api-server-options.js';
import { MAX_WARM_SANDBOXES, type WarmPoolEntry } from '../server/warm-pool-options.js';

/** What `--idle-action` takes. */
const IDLE_ACTIONS = ['stop', 'pause'] as const;

/** Engines the CLI can run sessions on. */
export const CLI_BACKENDS = ['docker', 'swarm'] as const;

/** The backend the command line asks for, with its options. */
export interface CliBackend {
  kind: (typeof CLI_BACKENDS)[number];
  /** Label namespace (the backend's default when unset). */
  namespace?: string | undefined;
  /** Host address sessions are published on (docker only). */
  publishAddress?: string | undefined;
  /** Network the sandboxes join. */
  network?: string | undefined;
}

export { CliUsageError } from '@agent-workspace/agent-server/http';

/** What the command line asks for. `server` holds the keys: never print it. */
export type CliCommand =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'serve'; backend: CliBackend; server: Omit<RuntimeApiServerOptions, 'backend'> };

/** `runtime-api --help` text. */
export const CLI_USAGE = `Usage: runtime-api --image <ref> [options]

Runs the agent-workspace Runtime API server: the OpenHands runtime API that starts, pauses,
resumes and stops agent-server sandboxes on a Docker engine or a Docker Swarm.

Options:
  --image <ref>                     An agent-server image /start may ask for; repeatable, at
                                    least one (the engine must already have it: no pulls)
  --backend <docker|swarm>          Where sessions run (default docker)
  --namespace <name>                Label namespace of this server's sessions; servers sharing
                                    an engine see only their own (default: the backend's, 'default')
  --host <host>                     Interface to listen on (default ${DEFAULTS.host})
  --port <port>                     Port to listen on, 0 picks a free one (default ${DEFAULTS.port})
  --max-sessions <n>                Most sessions of the namespace; more starts get 429
                                    (default ${DEFAULTS.maxSessions})
  --max-snapshots <n>               Most snapshots of the namespace; more get 429
                                    (default ${DEFAULTS.maxSnapshots})
  --memory-bytes <n>                Memory limit of a sandbox, times its resource_factor
  --cpus <n>                        CPUs of a sandbox (fractions allowed), times resource_factor
  --pids-limit <n>                  Most processes of a sandbox, times resource_factor
  --idle-timeout-seconds <s>        Stop or pause sessions whose agent-server reports a longer
                                    idle_time (default: never)
  --idle-action <stop|pause>        What happens to an idle session (default ${DEFAULTS.idleAction})
  --idle-check-interval-seconds <s> Seconds between reaping passes (idle sessions, unacknowledged
                                    starts) (default ${DEFAULTS.idleCheckIntervalSeconds})
  --unacknowledged-start-grace-seconds <s>
                                    Stop a started session no client fetched or used within
                                    this long: its /start answer reached nobody
                                    (default ${DEFAULTS.unacknowledgedStartGraceSeconds})
  --readiness-timeout-ms <ms>       Longest one agent-server probe may take (default ${DEFAULTS.readinessTimeoutMs})
  --request-timeout-seconds <s>     Longest a whole request may take to arrive; then 408
                                    (default ${DEFAULTS.requestTimeoutSeconds})
  --max-connections <n>             Most open client connections (default ${DEFAULTS.maxConnections})
  --publish-address <addr>          Host address sandboxes are published on (docker backend;
                                    default 127.0.0.1)
  --network <name>                  Network the sandboxes join (default: the engine's)
  --warm-pool <image>=<count>       Keep <count> sandboxes of <image> (one of --image) started
                                    and ready for /start (docker backend); repeatable, at most
                                    ${MAX_WARM_SANDBOXES} sandboxes in all (working directory /workspace)
  --allow-host <host[:port]>        Egress allow-list of every session (docker backend): the
                                    agent's commands, kernel and browser run in the agent-server's
                                    sandbox and reach only these hosts; a /start may narrow it
                                    with allow_hosts; repeatable, at most 256
  --allow-bind <dir>                A host directory /start volumes may bind-mount, exactly (never
                                    a path below it; symlinks resolved at start, must exist);
                                    repeatable (default: no bind mounts)
  --log-level <level>               fatal, error, warn, info, debug, trace or silent (default ${DEFAULTS.logLevel})
  -h, --help                        Show this help
  -v, --version                     Show the version

Environment (secrets are read from here only, never from flags):
  RUNTIME_API_KEY                   An accepted X-API-Key (at least ${MIN_API_KEY_LENGTH} characters)
  RUNTIME_API_KEYS_<n>              More accepted keys (e.g. during a rotation)
  RUNTIME_API_SESSION_SECRET        Secret the session keys are derived from (at least
                                    ${MIN_SESSION_KEY_SECRET_LENGTH} characters); keep it to keep sessions usable across restarts
  DOCKER_HOST, DOCKER_TLS_VERIFY, DOCKER_CERT_PATH   The engine to use (dockerode's defaults)
`;

/** The accepted API keys from the environment; a usage error names a missing or short one. */
function apiKeysFromEnv(env: NodeJS.ProcessEnv): string[] {
  const named: [string, string][] = [
    ...(env.RUNTIME_API_KEY ? [['RUNTIME_API_KEY', env.RUNTIME_API_KEY] as [string, string]] : []),
    ...indexedEnv(env, 'RUNTIME_API_KEYS_'),
  ];
  if (named.length === 0) {
    throw new CliUsageError(
      'RUNTIME_API_KEY is not set: put the Runtime API key in the environment (more in RUNTIME_API_KEYS_<n>)',
    );
  }
  for (const [name, value] of named) {
    if (value.length < MIN_API_KEY_LENGTH) {
      throw new CliUsageError(`${name} must be at least ${MIN_API_KEY_LENGTH} characters long`);
    }
  }
  return named.map(([, value]) => value);
}

function sessionSecretFromEnv(env: NodeJS.ProcessEnv): string {
  const secret = env.RUNTIME_API_SESSION_SECRET;
  if (!secret) {
    throw new CliUsageError(
      'RUNTIME_API_SESSION_SECRET is not set: put the secret session keys are derived from in the environment',
    );
  }
  if (secret.length < MIN_SESSION_KEY_SECRET_LENGTH) {
    throw new CliUsageError(
      `RUNTIME_API_SESSION_SECRET must be at least ${MIN_SESSION_KEY_SECRET_LENGTH} characters long`,
    );
  }
  return secret;
}

/** Parses a positive number flag value (fractions allowed). */
function positiveFlag(flag: string, value: string): number {
  const parsed = decimalFlag(flag, value, 'a positive number');
  if (parsed === 0) throw new CliUsageError(`${flag} must be a positive number, got '${value}'`);
  return parsed;
}

/**
 * Parses one `--warm-pool <image>=<count>` value (split at the last `=`, as image references
 * hold none): a usage error names the flag for a missing image or a count outside
 * 1..{@link MAX_WARM_SANDBOXES}.
 */
export function parseWarmPoolFlag(value: string): Pick<WarmPoolEntry, 'image' | 'count'> {
  const at = value.lastIndexOf('=');
  if (at <= 0) {
    throw new CliUsageError(`--warm-pool must be <image>=<count>, got '${value}'`);
  }
  return {
    image: value.slice(0, at),
    count: integerFlag('--warm-pool', value.slice(at + 1), 1, MAX_WARM_SANDBOXES),
  };
}

/** Checks `value` is one of `choices`. */
function choice<T extends string>(flag: string, value: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(value)) {
    throw new CliUsageError(`${flag} must be one of ${choices.join(', ')}, got '${value}'`);
  }
  return value as T;
}

/**
 * Parses the `runtime-api` command line (without `node` and the script) and the environment
 * into a command. Throws {@link CliUsageError} naming the flag or variable for unknown flags,
 * missing or invalid values, no `--image`, and missing or short secrets.
 */
export function parseCliArgs(args: readonly string[], env: NodeJS.ProcessEnv): CliCommand {
  let values: ReturnType<typeof parse>['values'];
  try {
    // `pnpm runtime-api -- --port 9000` passes the `--` through.
    ({ values } = parse(args[0] === '--' ? args.slice(1) : args));
  } catch (error) {
    throw new CliUsageError((error as Error).message);
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };

  const images = (values.image ?? []).map((image) => nonEmpty('--image', image));
  if (images.length === 0) throw new CliUsageError('--image is required (at least one)');
  const backendKind = choice('--backend', values.backend ?? 'docker', CLI_BACKENDS);
  const publishAddress = values['publish-address'];
  if (publishAddress !== undefined && backendKind !== 'docker') {
    throw new CliUsageError('--publish-address applies to --backend docker only');
  }
  const warmPool = (values['warm-pool'] ?? []).map(parseWarmPoolFlag);
  if (warmPool.length > 0 && backendKind !== 'docker') {
    throw new CliUsageError(
      '--warm-pool applies to --backend docker only: a Swarm service cannot be claimed for a session atomically',
    );
  }
  for (const { image } of warmPool) {
    if (!images.includes(image)) {
      throw new CliUsageError(`--warm-pool image ${image} is not one of the --image values`);
    }
  }
  const allowHosts = values['allow-host']?.map((host) => nonEmpty('--allow-host', host));
  if (allowHosts !== undefined && backendKind !== 'docker') {
    throw new CliUsageError(
      '--allow-host applies to --backend docker only: a Swarm service cannot run the sandbox that enforces it',
    );
  }
  const allowedBindSources = values['allow-bind']?.map((dir) => nonEmpty('--allow-bind', dir));
  const optional = <T>(name: string, parseValue: (flag: string, value: string) => T) => {
    const value = values[name as keyof typeof values] as string | undefined;
    return value === undefined ? undefined : parseValue(`--${name}`, value);
  };
  const integer =
    (min: number, max = Number.MAX_SAFE_INTEGER) =>
    (flag: string, value: string) =>
      integerFlag(flag, value, min, max);

  const resources = {
    memoryBytes: optional('memory-bytes', integer(1)),
    cpus: optional('cpus', positiveFlag),
    pidsLimit: optional('pids-limit', integer(1)),
  };
  // Unset flags stay unset: `createRuntimeApiServer` applies the one set of defaults.
  const server: Omit<RuntimeApiServerOptions, 'backend'> = {
    apiKeys: apiKeysFromEnv(env),
    sessionKeySecret: sessionSecretFromEnv(env),
    images,
    host: optional('host', nonEmpty),
    port: optional('port', integer(0, 65_535)),
    maxSessions: optional('max-sessions', integer(1)),
    maxSnapshots: optional('max-snapshots', integer(1)),
    resources: Object.fromEntries(
      Object.entries(resources).filter(([, value]) => value !== undefined),
    ),
    idleTimeoutSeconds: optional('idle-timeout-seconds', positiveFlag),
    idleAction: optional('idle-action', (flag, value) => choice(flag, value, IDLE_ACTIONS)),
    idleCheckIntervalSeconds: optional('idle-check-interval-seconds', positiveFlag),
    unacknowledgedStartGraceSeconds: optional('unacknowledged-start-grace-seconds', positiveFlag),
    readinessTimeoutMs: optional('readiness-timeout-ms', integer(1)),
    requestTimeoutSeconds: optional('request-timeout-seconds', positiveFlag),
    maxConnections: optional('max-connections', integer(1)),
    logLevel: optional('log-level', (flag, value) =>
      choice(flag, value, runtimeApiLogLevelSchema.options),
    ),
    ...(warmPool.length > 0 && { warmPool }),
    ...(allowHosts !== undefined && { allowHosts }),
    ...(allowedBindSources !== undefined && { allowedBindSources }),
  };
  const backend: CliBackend = {
    kind: backendKind,
    namespace: optional('namespace', nonEmpty),
    publishAddress: optional('publish-address', nonEmpty),
    network: optional('network', nonEmpty),
  };
  return { kind: 'serve', backend, server };
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: false,
    options: {
      image: { type: 'string', multiple: true },
      backend: { type: 'string' },
      namespace: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      'max-sessions': { type: 'string' },
      'max-snapshots': { type: 'string' },
      'memory-bytes': { type: 'string' },
      cpus: { type: 'string' },
      'pids-limit': { type: 'string' },
      'idle-timeout-seconds': { type: 'string' },
      'idle-action': { type: 'string' },
      'idle-check-interval-seconds': { type: 'string' },
      'unacknowledged-start-grace-seconds': { type: 'string' },
      'readiness-timeout-ms': { type: 'string' },
      'request-timeout-seconds': { type: 'string' },
      'max-connections': { type: 'string' },
      'publish-address': { type: 'string' },
      network: { type: 'string' },
      'log-level': { type: 'string' },
      'warm-pool': { type: 'string', multiple: true },
      'allow-host': { type: 'string', multiple: true },
      'allow-bind': { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
}
