// Smoke test of @agent-workspace/sdk installed alone: a scripted agent runs a command in a local
// workspace and finishes.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalWorkspace } from '@agent-workspace/core';
import { Agent, LocalConversation, ScriptedLLM } from '@agent-workspace/sdk';

const workingDir = await mkdtemp(path.join(tmpdir(), 'sdk-smoke-'));
const persistenceDir = await mkdtemp(path.join(tmpdir(), 'sdk-smoke-state-'));
const workspace = new LocalWorkspace({ workingDir });
try {
  const llm = new ScriptedLLM({
    script: [
      {
        toolCalls: [{ name: 'terminal', arguments: { command: 'echo from-the-agent > out.txt' } }],
      },
      { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] },
    ],
  });
  const agent = new Agent({ llm, tools: ['TerminalTool'], maxIterations: 5 });
  const conversation = await LocalConversation.create({ agent, workspace, persistenceDir });
  await conversation.sendMessage('Write out.txt.');
  assert.equal(await conversation.run(), 'finished');
  await conversation[Symbol.asyncDispose]();
  const { stdout } = await workspace.executeCommand('cat out.txt');
  assert.equal(stdout, 'from-the-agent\n');
} finally {
  await workspace[Symbol.asyncDispose]();
  await rm(workingDir, { recursive: true, force: true });
  await rm(persistenceDir, { recursive: true, force: true });
}
console.log('sdk ok');
