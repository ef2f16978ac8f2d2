import { once } from 'node:events';
import { createInterface } from 'node:readline';
import {
  AGENT_SERVER_ROUTES,
  conversationPath,
  SESSION_API_KEY_HEADER,
} from '@agent-workspace/protocol';
import { type LanguageModel, ScriptedLLM } from '@agent-workspace/sdk';
import { demoScript } from './demo-task.js';
import { printDemoOutcome } from './print-demo-outcome.js';
import { runDemo } from './run-demo.js';
import { type DemoServer, startDemoServer } from './start-demo-server.js';

/** Characters per streamed chunk of the scripted answers, and the pause before each. */
const STREAM_CHUNK_CHARS = 2;
const STREAM_DELAY_MS = 40;
/** The conversation's title in the page. */
const DEMO_TITLE = 'Demo: write stats.js, test it, fix it';

/** Options of {@link runDemoWithUi}. */
export interface RunDemoWithUiOptions {
  /** The server's port on 127.0.0.1; 0 picks a free one. */
  port: number;
  /** The directory to work in; default a new temporary one. */
  workingDir?: string | undefined;
  /** Leave the temporary directory. */
  keep?: boolean | undefined;
  /** The model; default the demo's script, streamed slowly enough to watch it arrive. */
  llm?: LanguageModel | undefined;
  /** Where the model is called, named in a failure line. */
  modelUrl: string;
  color: boolean;
  /** Wait for Enter before the run starts (a person at a terminal opens the page first). */
  waitForEnter: boolean;
  print: (line: string) => void;
  printError: (line: string) => void;
}

/**
 * `--ui`: starts an agent-server in this process (127.0.0.1, a new session key), prints the
 * page's address and the key, runs the demo's conversation inside that server while the
 * transcript is printed, then serves the page until SIGINT or SIGTERM, which close the server and
 * remove the temporary directory. Resolves to the exit status: that of the run (0 or 1), 130 when
 * stopped before the run began. A second signal quits at once.
 */
export async function runDemoWithUi(options: RunDemoWithUiOptions): Promise<number> {
  const { print } = options;
  const stop = new AbortController();
  const onSignal = (): void => {
    if (stop.signal.aborted) process.exit(130);
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await using server = await startDemoServer(options);
    const { workspace } = server;
    const llm =
      options.llm ??
      new ScriptedLLM({
        script: demoScript(workspace.workingDir),
        stream: true,
        streamChunkChars: STREAM_CHUNK_CHARS,
        streamDelayMs: STREAM_DELAY_MS,
      });
    print(
      `agent-workspace demo: the agent loop runs in an agent-server of this process at ${server.url}, working in ${workspace.workingDir}, model ${options.llm?.model ?? 'ScriptedLLM (a script, not a model)'}`,
    );
    let interrupted = false;
    const outcome = await runDemo({
      workspace,
      llm,
      color: options.color,
      print,
      signal: stop.signal,
      beforeRun: async (conversationId) => {
        await nameConversation(server, conversationId);
        print(`web page:        ${server.url}/#/conversations/${conversationId}`);
        print(`session API key: ${server.sessionKey}  (paste it into the page; shown only here)`);
        if (options.waitForEnter) {
          print('open the page, connect, then press Enter here to start the agent');
          await enterOrAbort(stop.signal);
        }
        print('');
        interrupted = stop.signal.aborted;
        if (interrupted) throw new Error('interrupted before the run');
      },
    }).catch((error: unknown) => {
      if (interrupted) return undefined;
      throw error;
    });
    if (outcome === undefined) {
      print('interrupted before the run: stopping the agent-server');
      return 130;
    }
    const status = printDemoOutcome(outcome, options);
    if (!stop.signal.aborted) {
      print('');
      print(`the page stays at ${server.url}/ until Ctrl-C`);
      await once(stop.signal, 'abort');
    }
    print('stopping the agent-server');
    return status;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** Gives the conversation a title, so the page's list names it. */
async function nameConversation(server: DemoServer, conversationId: string): Promise<void> {
  const path = conversationPath(AGENT_SERVER_ROUTES.conversation, conversationId);
  const response = await fetch(`${server.url}${path}`, {
    method: 'PATCH',
    headers: { [SESSION_API_KEY_HEADER]: server.sessionKey, 'content-type': 'application/json' },
    body: JSON.stringify({ title: DEMO_TITLE }),
  });
  if (!response.ok) throw new Error(`naming the conversation answered ${response.status}`);
  await response.body?.cancel();
}

/** Resolves at the next line on standard input, or when `signal` fires. */
async function enterOrAbort(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  // No output: the terminal stays cooked, so Ctrl-C is still a signal.
  const lines = createInterface({ input: process.stdin });
  try {
    await Promise.race([once(lines, 'line'), once(signal, 'abort')]);
  } finally {
    lines.close();
  }
}
