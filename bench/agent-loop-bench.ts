import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalWorkspace, RemoteWorkspace, type Workspace } from '@agent-workspace/core';
import { Agent, Conversation, LocalConversation, ScriptedLLM } from '@agent-workspace/sdk';
import { startAgentServerProcess } from './agent-server-process.js';
import { type Comparison, compare } from './bench-harness.js';

const API_KEY = 'bench-agent-loop';

/**
 * One agent step against the command it runs: a fresh conversation whose ScriptedLLM calls
 * `terminal` with `true` once (then answers its end-of-script text), against the bare
 * `executeCommand('true')` on the same workspace. The ratio is what the loop adds per step: two
 * model calls, the terminal's state wrapper, events and their bookkeeping.
 */
async function compareAgentStep(
  scenario: string,
  workspace: Workspace,
  loop: 'in-process' | 'by capability',
): Promise<Comparison> {
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
      name: `${loop === 'in-process' ? 'LocalConversation' : 'Conversation()'}: ScriptedLLM → terminal \`true\` → finished`,
      run: async () => {
        await using conversation =
          loop === 'in-process'
            ? await LocalConversation.create({ agent, workspace })
            : await Conversation({ agent, workspace });
        await conversation.sendMessage('run true');
        const status = await conversation.run();
        if (status !== 'finished') throw new Error(`the agent run ended ${status}`);
      },
    },
    target: 'the loop adds little to the command itself (absolute delta in ms below)',
  });
}

/**
 * The agent loop's own overhead per step: in this process over a local and a remote workspace,
 * and inside the agent-server (RemoteConversation: create, message, run, events over the socket).
 */
export async function benchAgentLoop(): Promise<Comparison[]> {
  const workingDir = await mkdtemp(path.join(tmpdir(), 'bench-agent-'));
  try {
    await using local = new LocalWorkspace({ workingDir });
    const results = [
      await compareAgentStep('one agent step on a LocalWorkspace', local, 'in-process'),
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
        'in-process',
      ),
      await compareAgentStep(
        'one agent step, loop in the agent-server (RemoteConversation, loopback)',
        remote,
        'by capability',
      ),
    );
    for (const result of results) {
      result.notes = `+${(result.candidate.p50 - result.baseline.p50).toFixed(2)} ms per step at p50`;
    }
    return results;
  } finally {
    await rm(workingDir, { recursive: true, force: true });
  }
}
