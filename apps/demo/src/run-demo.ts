import {
  type GitChange,
  type GitDiff,
  hasAgentServer,
  type Workspace,
} from '@agent-workspace/core';
import { Agent, Conversation, type LanguageModel, ScriptedLLM } from '@agent-workspace/sdk';
import { DEMO_TASK, demoScript, prepareRepository } from './demo-task.js';
import { type DemoFailure, findDemoFailure } from './find-demo-failure.js';
import { formatEvent } from './format-event.js';

/** Options of {@link runDemo}. */
export interface RunDemoOptions {
  /** Where the agent works; its working directory should be empty. */
  workspace: Workspace;
  /** The model; default the demo's `ScriptedLLM`. */
  llm?: LanguageModel | undefined;
  /** Receives each line of the event stream; default none. */
  print?: ((line: string) => void) | undefined;
  /** Colour the lines. */
  color?: boolean | undefined;
  signal?: AbortSignal | undefined;
  /** Told the conversation's id once it exists, before the task is sent; the run waits for it. */
  beforeRun?: ((conversationId: string) => Promise<void> | void) | undefined;
}

/** What the agent left in the repository, read once `stats.js` exists. */
export interface DemoResult {
  /** What changed in the repository. */
  changes: GitChange[];
  /** The diff of stats.js. */
  diff: GitDiff;
  /** The last run of the test, from the workspace itself. */
  testOutput: string;
  /** True when `node stats.test.js` exits with 0. */
  testPassed: boolean;
}

/** How the demo run ended and what it left in the workspace. */
export interface DemoOutcome {
  /** `finished` when the agent loop ended normally (`error`, `stuck`, `paused` otherwise). */
  status: string;
  /** Where the agent loop ran: `local` (this process) or `remote` (the agent-server). */
  loop: 'local' | 'remote';
  /** The agent's final answer; `''` when it gave none. */
  finalMessage: string;
  /** The files, when the run got as far as writing `stats.js`; `undefined` otherwise. */
  result: DemoResult | undefined;
  /** Why the task was not done; `undefined` when the run finished and the test passes. */
  failure: DemoFailure | undefined;
}

/**
 * Runs the demo task in `workspace`: prepares a git repository, lets the agent write, test and
 * fix `stats.js` while the event stream is printed, then reads the result back through the
 * workspace contract. `Conversation()` picks where the loop runs by the workspace's capability:
 * in this process for a local workspace, in the agent-server of a remote or Docker one.
 */
export async function runDemo(options: RunDemoOptions): Promise<DemoOutcome> {
  const { workspace, print = () => {}, color = false } = options;
  await prepareRepository(workspace);
  const llm = options.llm ?? new ScriptedLLM({ script: demoScript(workspace.workingDir) });
  const agent = new Agent({ llm, tools: ['TerminalTool', 'FileEditorTool', 'TaskTrackerTool'] });
  // In this process for a local workspace; inside the workspace's agent-server otherwise.
  await using conversation = await Conversation({ agent, workspace });
  const unsubscribe = conversation.events.subscribe((event) => {
    for (const line of formatEvent(event, { color })) print(line);
  });
  try {
    await options.beforeRun?.(conversation.id);
    await conversation.sendMessage(DEMO_TASK);
    const status = await conversation.run({ signal: options.signal });
    const result = await readResult(workspace);
    return {
      status,
      loop: hasAgentServer(workspace) ? 'remote' : 'local',
      finalMessage: await conversation.agentFinalResponse(),
      result,
      failure: findDemoFailure({
        status,
        events: conversation.events.toArray(),
        wroteStats: result !== undefined,
        testPassed: result?.testPassed ?? false,
      }),
    };
  } finally {
    unsubscribe();
  }
}

/** The changes, the diff of stats.js and a test run; `undefined` when stats.js was not written. */
async function readResult(workspace: Workspace): Promise<DemoResult | undefined> {
  const exists = await workspace.executeCommand('test -f stats.js');
  if (exists.exitCode !== 0) return undefined;
  const test = await workspace.executeCommand('node stats.test.js');
  return {
    changes: await workspace.gitChanges('.'),
    diff: await workspace.gitDiff('stats.js'),
    testOutput: `${test.stdout}${test.stderr}`.trim(),
    testPassed: test.exitCode === 0,
  };
}
