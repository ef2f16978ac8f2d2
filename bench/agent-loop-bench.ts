import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalWorkspace, RemoteWorkspace, type Workspace } from '@agent-workspace/core';
import { Agent, LocalConversation, ScriptedLLM } from '@agent-workspace/sdk';
import { startAgentServerProcess } from './agent-server-process.js';
import { type Comparison, compare } from './bench-harness.js';

const API_KEY = 'bench-agent-loop';

/**
 * One agent step against the command it runs: a fresh conversation whose ScriptedLLM calls
 * `terminal` with `true` once (then answers its end-of-script text), against the bare
 * `executeCommand('true')` on the same workspace. The ratio is what the loop adds per step: two
 * model calls, the terminal's state wrapper, events and their bookkeeping.
 */
async function compareAgentStep(scenario: string, workspace: Workspace): Promise<Comparison> {
  const agent = new Agent({
    llm: new ScriptedLLM({
      script: [{ toolCalls: [{ name: 'terminal', arguments: { command: 'true' } }] }],
    }),
    tools: ['TerminalTool'],
  });
  return compare({
    scenario,
    iterations: 120,
    baseline: {
      name: `${workspace.kind} executeCommand('true')`,
      run: () => workspace.executeCommand('true'),
    },
    candidate: {
      name: 'LocalConversation: ScriptedLLM → terminal `true` → observation → finished',
      run: async () => {
        await using conversation = await LocalConversation.create({ agent, workspace });
        await conversation.sendMessage('run true');
        const status = await conversation.run();
        if (status !== 'finished') throw new Error(`the agent run ended ${status}`);
      },
    },
    target: 'the loop adds little to the command itself (absolute delta in ms below)',
  });
}

/** The agent loop's own overhead per step, on a local and on a remote (loopback) workspace. */
export async function benchAgentLoop(): Promise<Comparison[]> {
  const workingDir = await mkdtemp(path.join(tmpdir(), 'bench-agent-'));
  try {
    await using local = new LocalWorkspace({ workingDir });
    const results = [await compareAgentStep('one agent step on a LocalWorkspace', local)];
    await using server = await startAgentServerProcess([
      '--working-dir',
      workingDir,
      '--session-api-key',
      API_KEY,
    ]);
    await using remote = new RemoteWorkspace({ host: server.url, workingDir, apiKey: API_KEY });
    results.push(await compareAgentStep('one agent step on a RemoteWorkspace (loopback)', remote));
    for (const result of results) {
      result.notes = `+${(result.candidate.p50 - result.baseline.p50).toFixed(2)} ms per step at p50`;
    }
    return results;
  } finally {
    await rm(workingDir, { recursive: true, force: true });
  }
}
