/**
 * The demo: an agent writes stats.js and its test, runs the test, sees it fail, fixes the code
 * with `file_editor` and runs it again, while the event stream is printed (with `--ui`, inside an
 * agent-server of this process whose web page shows it live). `--help` lists the flags. A bad
 * flag ends with one line and exit status 2; a run that does not get the task done (a model
 * failure, a text-only answer, an unknown tool, a failing test) with one line naming the cause on
 * standard error and exit status 1.
 */
import { LLM, LLMError } from '@agent-workspace/sdk';
import { describeRetry } from './describe-demo-failure.js';
import {
  HOST_GATEWAY_ENTRY,
  isLoopbackUrl,
  reachableFrom,
  toHostGatewayUrl,
} from './loopback-model-url.js';
import { openDemoWorkspace } from './open-demo-workspace.js';
import { DEMO_USAGE, type DemoArgs, DemoUsageError, parseDemoArgs } from './parse-demo-args.js';
import { printDemoOutcome } from './print-demo-outcome.js';
import { runDemo } from './run-demo.js';
import { runDemoWithUi } from './run-demo-with-ui.js';

/** Runs the demo for `argv`; resolves to the exit status. */
async function main(argv: readonly string[]): Promise<number> {
  const args = parseDemoArgs(argv);
  if (args === 'help') {
    console.log(DEMO_USAGE);
    return 0;
  }
  // The agent loop of a Docker workspace runs in the container, where loopback is its own.
  const viaGateway =
    args.workspace === 'docker' && args.model && args.baseUrl && isLoopbackUrl(args.baseUrl)
      ? toHostGatewayUrl(args.baseUrl)
      : undefined;
  if (viaGateway) {
    console.log(
      `model: ${args.baseUrl} is this machine's loopback and the agent loop runs in the container, so it calls ${viaGateway} (the host's gateway); the model server must listen on 0.0.0.0 or the Docker bridge, not only on 127.0.0.1`,
    );
  }
  const baseUrl = viaGateway ?? args.baseUrl;
  const llm = args.model ? createLLM(args, baseUrl) : undefined;
  const modelUrl = baseUrl ?? `the API of ${args.model ?? 'the model'}`;
  const color = process.stdout.isTTY === true && process.env.NO_COLOR === undefined;
  const print = (line: string): void => console.log(line);
  const printError = (line: string): void => console.error(line);
  if (args.ui) {
    return runDemoWithUi({
      port: args.port,
      workingDir: args.workingDir,
      keep: args.keep,
      llm,
      modelUrl,
      color,
      waitForEnter: process.stdin.isTTY === true,
      print,
      printError,
    });
  }
  await using opened = await openDemoWorkspace({
    kind: args.workspace,
    host: args.host,
    apiKey: args.apiKey,
    workingDir: args.workingDir,
    extraHosts: viaGateway ? [HOST_GATEWAY_ENTRY] : undefined,
    keep: args.keep,
  });
  const { workspace } = opened;
  if (viaGateway && !(await reachableFrom(workspace, viaGateway))) {
    throw new Error(
      `the container cannot reach ${viaGateway} (${args.baseUrl} on this machine): make the model server listen on 0.0.0.0 or the Docker bridge address, not only on loopback`,
    );
  }
  console.log(
    `agent-workspace demo: ${workspace.kind} workspace at ${workspace.workingDir}, model ${llm?.model ?? 'ScriptedLLM (a script, not a model)'}\n`,
  );
  // Ctrl-C pauses the run, so the directory is still removed; a second one quits at once.
  const interrupt = new AbortController();
  process.once('SIGINT', () => {
    console.log('interrupted: stopping the run (Ctrl-C again quits at once)');
    interrupt.abort();
    process.once('SIGINT', () => process.exit(130));
  });
  const outcome = await runDemo({ workspace, llm, color, print, signal: interrupt.signal });
  return printDemoOutcome(outcome, { modelUrl, print, printError });
}

/** The model of `--model`, its retries reported as they happen (in this process's loop). */
function createLLM(args: DemoArgs, baseUrl: string | undefined): LLM {
  try {
    return new LLM({
      model: args.model,
      baseUrl,
      maxRetries: args.maxRetries,
      retryMinWaitMs: args.retryWaitMs,
      onRetry: (event) => console.log(describeRetry(event, args.maxRetries)),
    });
  } catch (error) {
    if (LLMError.isInstance(error, 'INVALID_CONFIG'))
      throw new DemoUsageError(`--model: ${error.message}`);
    throw error;
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0];
  if (error instanceof DemoUsageError) {
    console.error(`demo: ${message} (see --help)`);
    process.exitCode = 2;
  } else {
    console.error(`demo: ${message}`);
    process.exitCode = 1;
  }
}
