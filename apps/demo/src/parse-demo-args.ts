import { parseArgs } from 'node:util';

/** What the demo was asked to do, flags checked. */
export interface DemoArgs {
  workspace: 'local' | 'docker' | 'remote';
  /** The agent-server's URL (remote workspace). */
  host: string | undefined;
  /** The agent-server's session key (remote workspace). */
  apiKey: string | undefined;
  workingDir: string | undefined;
  /** `provider/model`; `undefined` runs the ScriptedLLM. */
  model: string | undefined;
  baseUrl: string | undefined;
  maxRetries: number;
  retryWaitMs: number;
  keep: boolean;
  /** Run the conversation in an agent-server of this process and serve the web page. */
  ui: boolean;
  /** The port of that agent-server; 0 picks a free one. */
  port: number;
}

/** A bad flag or value: the message names the flag and the reason. Exit status 2. */
export class DemoUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DemoUsageError';
  }
}

/** `--help`. */
export const DEMO_USAGE = `usage: pnpm -s demo [flags]   (or: node --import tsx apps/demo/src/main.ts [flags])

An agent writes stats.js and its test, runs the test, sees it fail, fixes it and runs it again.

  flag                   meaning                                      default
  --workspace <kind>     local, docker or remote                      local
  --host <url>           the agent-server's URL (remote: required)    none
  --api-key <key>        the agent-server's session key (remote)      none
  --working-dir <dir>    local: the directory to work in              a new temp dir
                         remote: where to make the agent-demo-* dir,  the server's
                         removed afterwards                           working dir
  --model <id>           provider/model, e.g. openai/gpt-4o-mini;     $LLM_MODEL, else
                         its key from $LLM_API_KEY                    ScriptedLLM
  --base-url <url>       the model API's base URL                     $LLM_BASE_URL, else
                                                                      the provider's
  --max-retries <n>      retries of a failed model call (0-20)        2
  --retry-wait-ms <ms>   first wait before a retry, then doubled      1000
  --keep                 keep the directory the demo made             off
  --ui                   run it in an agent-server on 127.0.0.1 and   off
                         watch it in the web page (local only); it
                         prints the page's address and a new session
                         key, and serves until Ctrl-C
  --port <n>             the port of that server (with --ui)          0 (a free one)
  -h, --help             print this and exit`;

const OPTIONS = {
  workspace: { type: 'string', default: 'local' },
  host: { type: 'string' },
  'api-key': { type: 'string' },
  'working-dir': { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  'max-retries': { type: 'string', default: '2' },
  'retry-wait-ms': { type: 'string', default: '1000' },
  keep: { type: 'boolean', default: false },
  ui: { type: 'boolean', default: false },
  port: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/**
 * Reads the command line (without `node` and the script); `help` when `--help` was given.
 * `env` fills in `--model` and `--base-url` (`LLM_MODEL`, `LLM_BASE_URL`). Bad flags throw a
 * {@link DemoUsageError}.
 */
export function parseDemoArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): DemoArgs | 'help' {
  // `pnpm demo -- --flag` passes the `--` through.
  const args = argv.filter((arg, index) => index > 0 || arg !== '--');
  let values: ReturnType<typeof parse>['values'];
  try {
    ({ values } = parse(args));
  } catch (error) {
    throw new DemoUsageError(parseErrorMessage(error));
  }
  if (values.help) return 'help';
  const workspace = values.workspace;
  if (workspace !== 'local' && workspace !== 'docker' && workspace !== 'remote') {
    throw new DemoUsageError(`--workspace must be local, docker or remote, got "${workspace}"`);
  }
  if (workspace === 'remote' && !values.host) {
    throw new DemoUsageError('--workspace remote needs --host, the URL of an agent-server');
  }
  if (workspace !== 'remote' && (values.host || values['api-key'])) {
    throw new DemoUsageError(`--${values.host ? 'host' : 'api-key'} is for --workspace remote`);
  }
  if (workspace === 'docker' && values['working-dir']) {
    throw new DemoUsageError('--working-dir is not used with --workspace docker (/workspace)');
  }
  if (values.ui && workspace !== 'local') {
    throw new DemoUsageError(
      `--ui runs its own agent-server on this machine: it works with --workspace local only, not ${workspace}`,
    );
  }
  if (values.port !== undefined && !values.ui) {
    throw new DemoUsageError('--port is for --ui');
  }
  const model = values.model ?? (env.LLM_MODEL || undefined);
  if (values['base-url'] && !model) {
    throw new DemoUsageError(
      '--base-url needs --model (or LLM_MODEL): the ScriptedLLM calls no API',
    );
  }
  const baseUrl = values['base-url'] ?? (env.LLM_BASE_URL || undefined);
  return {
    workspace,
    host: values.host && httpUrl('--host', values.host),
    apiKey: values['api-key'],
    workingDir: values['working-dir'],
    model,
    baseUrl: baseUrl && httpUrl(values['base-url'] ? '--base-url' : 'LLM_BASE_URL', baseUrl),
    maxRetries: integer('--max-retries', values['max-retries'], 20),
    retryWaitMs: integer('--retry-wait-ms', values['retry-wait-ms'], 64_000),
    keep: values.keep,
    ui: values.ui,
    port: values.port === undefined ? 0 : integer('--port', values.port, 65_535),
  };
}

function parse(args: string[]) {
  return parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false });
}

/** One line for node's parseArgs errors, naming the flag. */
function parseErrorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code;
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? '';
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown flag ${quoted}`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument "${quoted}" (every value follows its flag)`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return /argument missing/.test(message)
        ? `${quoted.split(' ')[0]} needs a value`
        : `${quoted.split(' ')[0]} takes no value`;
    default:
      return message.split('\n')[0] ?? message;
  }
}

function integer(flag: string, value: string, max: number): number {
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(parsed <= max)) {
    throw new DemoUsageError(`${flag} must be an integer from 0 to ${max}, got "${value}"`);
  }
  return parsed;
}

function httpUrl(flag: string, value: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new DemoUsageError(`${flag} must be an http(s) URL, got "${value}"`);
  }
  return value;
}
