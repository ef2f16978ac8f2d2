#!/usr/bin/env node
import { closeOnSignals } from './cli/close-on-signals.js';
import { CLI_USAGE, CliUsageError, parseCliArgs } from './cli/parse-cli-args.js';
import { createAgentServer } from './create-agent-server.js';
import { VERSION } from './version.js';

/** The `agent-server` command: parses flags, serves until SIGTERM/SIGINT, then closes cleanly. */
async function main(): Promise<void> {
  let command: ReturnType<typeof parseCliArgs>;
  try {
    command = parseCliArgs(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof CliUsageError)) throw error;
    process.stderr.write(`agent-server: ${error.message}\nRun 'agent-server --help' for usage.\n`);
    process.exit(2);
  }
  if (command.kind === 'help') return void process.stdout.write(CLI_USAGE);
  if (command.kind === 'version') return void process.stdout.write(`${VERSION}\n`);
  for (const warning of command.warnings)
    process.stderr.write(`agent-server: warning: ${warning}\n`);

  let server: Awaited<ReturnType<typeof createAgentServer>>;
  try {
    server = await createAgentServer(command.options);
  } catch (error) {
    process.stderr.write(`agent-server: failed to start: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const { log } = server.app;
  const { host, sessionApiKeys, sessionApiKeyHashes, workingDir } = server.options;
  // Keys are counted, never logged.
  const sessionApiKeyCount = sessionApiKeys.length + sessionApiKeyHashes.length;
  log.info(
    { url: server.url, workingDir, sessionApiKeyCount },
    `agent-server listening on ${server.url}`,
  );
  const { sweep } = server;
  if (sweep.instances > 0) {
    log.warn(
      { sweep },
      `cleaned up after ${sweep.instances} agent-server(s) that died without closing: ${sweep.processes} processes ended, ${sweep.temporaryFiles} temporary files removed`,
    );
  }
  if (sessionApiKeyCount === 0 && host !== '127.0.0.1' && host !== 'localhost') {
    log.warn({ host }, 'no session API key configured: anyone who can reach the port has access');
  }

  closeOnSignals({ close: () => server.close(), log });
}

await main();
