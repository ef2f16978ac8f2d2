import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalWorkspace, RemoteWorkspace, type Workspace } from '@agent-workspace/core';
import { DockerWorkspace, resolveAgentServerImage } from '@agent-workspace/docker';
import {
  Agent,
  Conversation,
  LocalConversation,
  ScriptedLLM,
  TerminalTool,
} from '@agent-workspace/sdk';
import { startAgentServerProcess } from './agent-server-process.js';
import { bestOf, type Comparison, compare, roundsComparison, summarise } from './bench-harness.js';

const API_KEY = 'bench-agent-loop';

/**
 * `candidate` against the bare `executeCommand('true')` on the same workspace, interleaved; the
 * notes give the p50 delta per `unit` (a step, a tool call).
 */
async function compareWithBareCommand(options: {
  scenario: string;
  workspace: Workspace;
  candidate: { name: string; run: () => Promise<unknown> };
  unit: string;
  target?: string;
}): Promise<Comparison> {
  const { scenario, workspace, candidate, unit, target } = options;
  const comparison = await compare({
    scenario,
    iterations: 120,
    baseline: {
      name: `${workspace.kind} executeCommand('true')`,
      run: () => workspace.executeCommand('true'),
    },
    candidate,
    target,
  });
  const delta = (comparison.candidate.p50 - comparison.baseline.p50).toFixed(2);
  comparison.notes = `+${delta} ms per ${unit} at p50`;
  return comparison;
}

/**
 * One agent step, loop in this process, against the command it runs: a fresh LocalConversation
 * whose ScriptedLLM calls
 * `terminal` with `true` once (then answers its end-of-script text), against the bare
 * `executeCommand('true')` on the same workspace. The ratio is what the loop adds per step: two
 * model calls, the terminal's state wrapper, events and their bookkeeping.
 */
function compareAgentStep(scenario: string, workspace: Workspace): Promise<Comparison> {
  const agent = new Agent({
    llm: new ScriptedLLM({
      script: [{ toolCalls: [{ name: 'terminal', arguments: { command: 'true' } }] }],
    }),
    tools: ['TerminalTool'],
  });
  return compareWithBareCommand({
    scenario,
    workspace,
    candidate: {
      name: 'LocalConversation: ScriptedLLM → terminal `true` → finished',
      run: () => oneStepConversation(agent, workspace, 'in-process'),
    },
    unit: 'step',
    target: 'the loop adds little to the command itself (absolute delta in ms below)',
  });
}

/**
 * The tool call of a step on its own: `TerminalTool` running `true` (its state wrapper restores
 * and saves the working directory and exports around the command) against the bare
 * `executeCommand('true')`, on the same workspace. Its delta is the part of a step's overhead
 * that is the terminal's, not the loop's.
 */
function compareTerminalCall(scenario: string, workspace: Workspace): Promise<Comparison> {
  const terminal = new TerminalTool();
  return compareWithBareCommand({
    scenario,
    workspace,
    candidate: {
      name: 'TerminalTool `true` (state wrapper)',
      run: async () => {
        const observation = await terminal.execute({ command: 'true' }, { workspace });
        if (observation.isError) throw new Error(`terminal call failed: ${observation.text}`);
      },
    },
    unit: 'tool call',
  });
}

/** A whole one-step conversation: create, send, run until finished, close. */
async function oneStepConversation(
  agent: Agent,
  workspace: Workspace,
  loop: 'in-process' | 'by capability',
): Promise<void> {
  await using conversation =
    loop === 'in-process'
      ? await LocalConversation.create({ agent, workspace })
      : await Conversation({ agent, workspace });
  await conversation.sendMessage('run true');
  const status = await conversation.run();
  if (status !== 'finished') throw new Error(`the agent run ended ${status}`);
}

/** Rounds of {@link compareRunningStep}, and samples of each side per round (their median counts). */
const STEP_ROUNDS = 7;
const STEPS_PER_ROUND = 15;

/** The median of `count` timings of `operation`, in ms. */
async function medianTime(count: number, operation: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const start = performance.now();
    await operation();
    samples.push(performance.now() - start);
  }
  return summarise('step', samples).p50;
}

/**
 * One step of a conversation that is already running in the workspace's agent-server
 * (RemoteConversation): the conversation is created once, with a ScriptedLLM that repeats
 * `[terminal \`true\`, text]`, and each sample sends a message and runs until the step's tool
 * call has finished and the model's text has ended the run. Baseline: the bare
 * `executeCommand('true')` on the same workspace; best of {@link STEP_ROUNDS} interleaved rounds,
 * each side's sample the median of {@link STEPS_PER_ROUND}.
 */
async function compareRunningStep(scenario: string, workspace: Workspace): Promise<Comparison> {
  const agent = new Agent({
    llm: new ScriptedLLM({
      script: [
        { toolCalls: [{ name: 'terminal', arguments: { command: 'true' } }] },
        { text: 'Ran true.' },
      ],
      repeat: true,
    }),
    tools: ['TerminalTool'],
  });
  await using conversation = await Conversation({ agent, workspace });
  const observations = () =>
    conversation.events.toArray().filter((event) => event.kind === 'ObservationEvent').length;
  let steps = 0;
  const step = async () => {
    await conversation.sendMessage('run true');
    const status = await conversation.run();
    if (status !== 'finished') throw new Error(`the agent run ended ${status}`);
    steps += 1;
  };
  const rounds = await bestOf({
    rounds: STEP_ROUNDS,
    warmup: 1,
    baseline: () => medianTime(STEPS_PER_ROUND, () => workspace.executeCommand('true')),
    candidate: () => medianTime(STEPS_PER_ROUND, step),
  });
  // Each step ran its tool call: one observation per step.
  if (observations() !== steps) {
    throw new Error(`${steps} steps gave ${observations()} observations`);
  }
  const deltas = rounds.candidate.map((value, index) => value - (rounds.baseline[index] ?? 0));
  const wholeConversation = await medianTime(5, () =>
    oneStepConversation(agent, workspace, 'by capability'),
  );
  return roundsComparison({
    scenario,
    baseline: { name: `${workspace.kind} executeCommand('true')`, samples: rounds.baseline },
    candidate: {
      name: 'RemoteConversation step: send, run → `true` → finished',
      samples: rounds.candidate,
    },
    unit: 'ms',
    higherIsBetter: false,
    target: '≤ +3 ms per step',
    notes:
      `+${(Math.min(...rounds.candidate) - Math.min(...rounds.baseline)).toFixed(2)} ms per step best-of-${STEP_ROUNDS}, ` +
      `+${summarise('delta', deltas).p50.toFixed(2)} ms median round; step ${rounds.candidate[0]?.toFixed(2)} ms in the first round, ` +
      `${rounds.candidate.at(-1)?.toFixed(2)} ms in the last (${steps} steps in); ` +
      `a whole one-step conversation (create, socket, run, close) ${wholeConversation.toFixed(2)} ms`,
  });
}

/**
 * The agent loop's own overhead per step: in this process over a local, a remote and a Docker
 * workspace, and inside the agent-server of the remote and the Docker one (RemoteConversation:
 * one step of a conversation already running there, see {@link compareRunningStep}).
 */
export async function benchAgentLoop(): Promise<Comparison[]> {
  const workingDir = await mkdtemp(path.join(tmpdir(), 'bench-agent-'));
  try {
    await using local = new LocalWorkspace({ workingDir });
    const results = [
      await compareAgentStep('one agent step on a LocalWorkspace', local),
      await compareTerminalCall('the terminal tool call of a step, on a LocalWorkspace', local),
    ];
    await using server = await startAgentServerProcess([
      '--working-dir',
      workingDir,
      '--session-api-key',
      API_KEY,
    ]);
    await using remote = new RemoteWorkspace({ host: server.url, workingDir, apiKey: API_KEY });
    results.push(
      await compareAgentStep(
        'one agent step, loop in this process, tools on a RemoteWorkspace (loopback)',
        remote,
      ),
      await compareRunningStep(
        'one agent step of a running conversation in the agent-server (RemoteConversation, loopback)',
        remote,
      ),
    );
    await using docker = await DockerWorkspace.create({ image: await resolveAgentServerImage() });
    results.push(
      await compareAgentStep(
        'one agent step, loop in this process, tools on a DockerWorkspace',
        docker,
      ),
      await compareRunningStep(
        "one agent step of a running conversation in the Docker workspace's agent-server (RemoteConversation)",
        docker,
      ),
    );
    return results;
  } finally {
    await rm(workingDir, { recursive: true, force: true });
  }
}
