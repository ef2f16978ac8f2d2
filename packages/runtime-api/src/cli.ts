#!/usr/bin/env node
import { closeOnSignals } from '@agent-workspace/agent-server/http';
import packageJson from '../package.json' with { type: 'json' };
import { DockerRuntimeBackend } from './backend/docker-runtime-backend.js';
import type { RuntimeBackend } from './backend/runtime-backend.js';
import { SwarmRuntimeBackend } from './backend/swarm-runtime-backend.js';
import { CLI_USAGE, type CliBackend, CliUsageError, parseCliArgs } from './cli/parse-cli-args.js';
import {
  createRuntimeApiServer,
  type RuntimeApiServer,
} from './server/create-runtime-api-server.js';

/** Longest the start-up check of the engine may take. */
const ENGINE_CHECK_TIMEOUT_MS = 15_000;

function createBackend({ kind, namespace, publishAddress, network }: CliBackend): RuntimeBackend {
  return kind === 'docker'
    ? new DockerRuntimeBackend({ namespace, publishAddress, network })
    : new SwarmRuntimeBackend({ namespace, network });
}

/**
 * The `runtime-api` command: parses flags and environment, checks the engine, serves until
 * SIGTERM/SIGINT, then closes cleanly (sessions keep running in the engine).
 */
async function main(): Promise<void> {
  let command: ReturnType<typeof parseCliArgs>;
  try {
    command = parseCliArgs(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof CliUsageError)) throw error;
    process.stderr.write(`runtime-api: ${error.message}\nRun 'runtime-api --help' for usage.\n`);
    process.exit(2);
  }
  if (command.kind === 'help') return void process.stdout.write(CLI_USAGE);
  if (command.kind === 'version') return void process.stdout.write(`${packageJson.version}\n`);

  let server: RuntimeApiServer;
  let sessions: number;
  try {
    const backend = createBackend(command.backend);
    // Fails fast, with the engine's own words, when the engine is unreachable.
    sessions = (await backend.list({ signal: AbortSignal.timeout(ENGINE_CHECK_TIMEOUT_MS) }))
      .length;
    server = await createRuntimeApiServer({ ...command.server, backend });
  } catch (error) {
    process.stderr.write(`runtime-api: failed to start: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const { log } = server.app;
  const {
    backend,
    images,
    apiKeys,
    maxSessions,
    idleTimeoutSeconds,
    idleAction,
    unacknowledgedStartGraceSeconds,
    warmPool,
  } = server.options;
  // Keys are counted, never logged.
  log.info(
    {
      url: server.url,
      backend: backend.kind,
      namespace: backend.namespace,
      images,
      apiKeyCount: apiKeys.length,
      sessions,
      maxSessions,
      idleTimeoutSeconds: idleTimeoutSeconds ?? null,
      idleAction,
      unacknowledgedStartGraceSeconds,
      warmPool: warmPool.map(({ image, count }) => ({ image, count })),
    },
    `runtime-api listening on ${server.url}`,
  );

  closeOnSignals({
    close: () => server.close(),
    log,
    message: 'shutting down; sessions keep running in the engine, warm sandboxes are removed',
  });
}

await main();
