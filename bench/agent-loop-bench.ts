import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalWorkspace, RemoteWorkspace, type Workspace } from '@agent-workspace/core';
import { DockerWorkspace, resolveAgentServerImage } from '@agent-workspace/docker';
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
  const comparison = await compare({
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
  const delta = (comparison.candidate.p50 - comparison.baseline.p50).toFixed(2);
  comparison.notes =
    loop === 'in-process'
      ? `+${delta} ms per step at p50`
      : `+${delta} ms at p50 for a whole one-step conversation (create, socket, run, end detection)`;
  return comparison;
}

/**
 * The agent loop's own overhead per step: in this process over a local, a remote and a Docker
 * workspace, and inside the agent-server of the remote and the Docker one (RemoteConversation:
 * each sample creates the conversation, sends the message, runs and streams the events).
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
    await using docker = await DockerWorkspace.create({ image: await resolveAgentServerImage() });
    results.push(
      await compareAgentStep(
        'one agent step, loop in this process, tools on a DockerWorkspace',
        docker,
        'in-process',
      ),
      await compareAgentStep(
        "one agent step, loop in the Docker workspace's agent-server (RemoteConversation)",
        docker,
        'by capability',
      ),
    );
    return results;
  } finally {
    await rm(workingDir, { recursive: true, force: true });
  }
}
