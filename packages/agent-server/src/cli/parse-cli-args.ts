import { statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type AgentServerOptions, logLevelSchema } from '../agent-server-options.js';

/** What the command line asks for. */
export type CliCommand =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'serve'; options: AgentServerOptions };

/** A bad flag or value; the message names the flag. The CLI prints it and exits with 2. */
export class CliUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

/** `agent-server --help` text. */
export const CLI_USAGE = `Usage: agent-server [options]

Runs the agent-workspace agent-server (OpenHands-compatible HTTP/WebSocket API).

Options:
  --host <host>                Interface to listen on (default 127.0.0.1)
  --port <port>                Port to listen on, 0 picks a free one (default 8000)
  --working-dir <dir>          Default cwd and base of relative paths (default: cwd)
  --session-api-key <key>      Accepted X-Session-API-Key; repeatable (default: no auth)
  --state-dir <dir>            Where bash event history is persisted (default: memory only)
  --log-level <level>          fatal, error, warn, info, debug, trace or silent (default info)
  --confine-to-working-dir     Reject file, git and cwd paths outside the working directory
  --max-upload-bytes <n>       Largest accepted upload in bytes (default 1073741824)
  --allow-cors-origin <origin> Extra CORS origin besides localhost; repeatable
  --no-extensions              Serve and announce only the plain OpenHands protocol
  -h, --help                   Show this help
  -v, --version                Show the version

Environment:
  SESSION_API_KEY, OH_SESSION_API_KEYS_<n>   More accepted session API keys
  OH_ALLOW_CORS_ORIGINS_<n>                  More CORS origins
  DOCKER_HOST_ADDR                           A host whose origins CORS always allows
  AGENT_SERVER_BUILD_GIT_SHA, AGENT_SERVER_BUILD_GIT_REF   Reported by /server_info
`;

/** Values of `<prefix><n>` variables, in numeric order of `n` (OpenHands' list variables). */
function indexedEnv(env: NodeJS.ProcessEnv, prefix: string): string[] {
  return Object.entries(env)
    .flatMap(([name, value]) => {
      const index = name.startsWith(prefix) ? name.slice(prefix.length) : '';
      return /^\d+$/.test(index) && value ? [[Number(index), value] as const] : [];
    })
    .sort(([a], [b]) => a - b)
    .map(([, value]) => value);
}

/** Parses a non-negative integer flag value within bounds. */
function integerFlag(flag: string, value: string, min: number, max: number): number {
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(parsed >= min && parsed <= max)) {
    throw new CliUsageError(`${flag} must be an integer from ${min} to ${max}, got '${value}'`);
  }
  return parsed;
}

/** Rejects an empty string value of `flag`. */
function nonEmpty(flag: string, value: string): string {
  if (value === '') throw new CliUsageError(`${flag} must not be empty`);
  return value;
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
  const options: AgentServerOptions = {
    host: nonEmpty('--host', values.host ?? '127.0.0.1'),
    port: integerFlag('--port', values.port ?? '8000', 0, 65_535),
    workingDir,
    sessionApiKeys: [
      ...(values['session-api-key'] ?? []).map((key) => nonEmpty('--session-api-key', key)),
      ...(env.SESSION_API_KEY ? [env.SESSION_API_KEY] : []),
      ...indexedEnv(env, 'OH_SESSION_API_KEYS_'),
    ],
    ...(stateDir !== undefined && { stateDir: path.resolve(nonEmpty('--state-dir', stateDir)) }),
    logLevel: level.data,
    confineToWorkingDir: values['confine-to-working-dir'] ?? false,
    allowCorsOrigins: [
      ...(values['allow-cors-origin'] ?? []).map((origin) =>
        nonEmpty('--allow-cors-origin', origin),
      ),
      ...indexedEnv(env, 'OH_ALLOW_CORS_ORIGINS_'),
    ],
    extensions: values.extensions ?? true,
  };
  const maxUploadBytes = values['max-upload-bytes'];
  if (maxUploadBytes !== undefined) {
    options.maxUploadBytes = integerFlag(
      '--max-upload-bytes',
      maxUploadBytes,
      1,
      Number.MAX_SAFE_INTEGER,
    );
  }
  return { kind: 'serve', options };
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
      'allow-cors-origin': { type: 'string', multiple: true },
      extensions: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  });
}
