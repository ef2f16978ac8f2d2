/**
 * The demo: an agent writes stats.js and its test, runs the test, sees it fail, fixes the code
 * with `file_editor` and runs it again, while the event stream is printed.
 *
 *   pnpm demo                                   local workspace, scripted model: no key, no Docker
 *   pnpm demo -- --workspace docker             the same run in a Docker workspace
 *   pnpm demo -- --workspace remote --host http://127.0.0.1:8000 --api-key KEY --working-dir /srv
 *   pnpm demo -- --model openai/gpt-4o-mini     a real model (LLM_API_KEY, LLM_BASE_URL)
 *   --keep                                      keep the local working directory
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { LocalWorkspace, RemoteWorkspace, type Workspace } from '@agent-workspace/core';
import { DockerWorkspace, resolveAgentServerImage } from '@agent-workspace/docker';
import { LLM } from '@agent-workspace/sdk';
import { runDemo } from './run-demo.js';

const { values } = parseArgs({
  // `pnpm demo -- --flag` passes the `--` through.
  args: process.argv.slice(2).filter((arg, index) => index > 0 || arg !== '--'),
  options: {
    workspace: { type: 'string', default: 'local' },
    host: { type: 'string' },
    'api-key': { type: 'string' },
    'working-dir': { type: 'string' },
    model: { type: 'string' },
    'base-url': { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});

/** Stops with a usage error: exit status 2, no stack trace. */
function usage(message: string): never {
  console.error(`demo: ${message}`);
  process.exit(2);
}

if (!['local', 'docker', 'remote'].includes(values.workspace)) {
  usage(`--workspace must be local, docker or remote, got "${values.workspace}"`);
}
if (values.workspace === 'remote' && !values.host) {
  usage('--workspace remote needs --host (and --api-key when the server has one)');
}

const color = process.stdout.isTTY === true && process.env.NO_COLOR === undefined;
const model = values.model ?? process.env.LLM_MODEL;
const llm = model ? new LLM({ model, baseUrl: values['base-url'] }) : undefined;

/** A fresh, empty working directory in the workspace kind asked for. */
async function openWorkspace(): Promise<Workspace> {
  switch (values.workspace) {
    case 'local': {
      if (values['working-dir']) return new LocalWorkspace({ workingDir: values['working-dir'] });
      const workingDir = await mkdtemp(path.join(tmpdir(), 'agent-demo-'));
      if (!values.keep) cleanups.push(() => rm(workingDir, { recursive: true, force: true }));
      return new LocalWorkspace({ workingDir });
    }
    case 'docker':
      return DockerWorkspace.create({ image: await resolveAgentServerImage() });
    default: {
      const base = values['working-dir'] ?? '/workspace';
      const workingDir = path.posix.join(base, `agent-demo-${randomBytes(4).toString('hex')}`);
      const connection = { host: values.host ?? '', apiKey: values['api-key'] };
      await using root = new RemoteWorkspace({ ...connection, workingDir: base });
      await root.executeCommand(`mkdir -p '${workingDir}'`);
      return new RemoteWorkspace({ ...connection, workingDir });
    }
  }
}

/** What to remove once the workspace is closed (the local default directory, unless --keep). */
const cleanups: Array<() => Promise<void>> = [];
await using _cleanup = {
  [Symbol.asyncDispose]: async () => {
    for (const cleanup of cleanups) await cleanup();
  },
};
await using workspace = await openWorkspace();
console.log(
  `agent-workspace demo: ${workspace.kind} workspace at ${workspace.workingDir}, model ${llm?.model ?? 'ScriptedLLM (a script, not a model)'}\n`,
);
const outcome = await runDemo({ workspace, llm, color, print: (line) => console.log(line) });
console.log('');
console.log(
  `status:  ${outcome.status} (agent loop: ${outcome.loop === 'local' ? 'this process' : 'the agent-server'})`,
);
console.log(`answer:  ${outcome.finalMessage}`);
console.log(
  `changes: ${outcome.changes.map((change) => `${change.status} ${change.path}`).join(', ')}`,
);
console.log(`test:    ${outcome.testOutput}`);
process.exitCode = outcome.status === 'finished' ? 0 : 1;
