import { AGENT_SERVER_LISTENING_EVENT } from '@agent-workspace/protocol';
import { type AgentServer, createAgentServer } from '../create-agent-server.js';
import { VERSION } from '../version.js';
import { closeOnSignals } from './close-on-signals.js';
import { CLI_USAGE, CliUsageError, parseCliArgs } from './parse-cli-args.js';

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /**
   * How the single-file bundle's V8 code cache fared (`accepted`, `rejected`, `absent`), told
   * by its launcher and written in the listening line.
   */
  codeCache?: 'accepted' | 'rejected' | 'absent' | undefined;
}

/**
 * The `agent-server` command: parses flags, serves until SIGTERM/SIGINT, then closes cleanly.
 * Resolves once the server listens, with the server (nothing for `--help` / `--version`).
 */
export async function runCli({ codeCache }: RunCliOptions = {}): Promise<AgentServer | undefined> {
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

  let server: AgentServer;
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
  // Launchers that read our output wait for this line instead of polling /health.
  log.info(
    {
      event: AGENT_SERVER_LISTENING_EVENT,
      url: server.url,
      workingDir,
      sessionApiKeyCount,
      ...(codeCache && { codeCache }),
    },
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
  return server;
}
