/**
 * Two agents at work at the same time on one repository, each in its own git worktree (its own
 * branch and files), each holding its worktree exclusively; then each one's `gitDiff`. Each change
 * is committed to its agent's branch, and closing a worktree workspace removes the worktree (it
 * refuses while there is uncommitted work); the branches stay in the repository.
 *
 * The agents run a script (`ScriptedLLM`), not a model: no key needed.
 *
 * Run: pnpm --filter @agent-workspace/example-parallel-worktrees start
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { acquireWorkspace } from '@agent-workspace/core';
import { GitWorkspace } from '@agent-workspace/git-workspaces';
import { Agent, Conversation, ScriptedLLM } from '@agent-workspace/sdk';
import { execa } from 'execa';

const dir = await mkdtemp(path.join(tmpdir(), 'parallel-worktrees-'));
const repo = path.join(dir, 'repo');
const env = {
  GIT_AUTHOR_NAME: 'example',
  GIT_AUTHOR_EMAIL: 'example@example.com',
  GIT_COMMITTER_NAME: 'example',
  GIT_COMMITTER_EMAIL: 'example@example.com',
};
await execa('git', ['init', '-q', '-b', 'main', repo]);
await writeFile(path.join(repo, 'greeting.txt'), 'hello\n');
await writeFile(path.join(repo, 'farewell.txt'), 'goodbye\n');
await execa('git', ['add', '.'], { cwd: repo });
await execa('git', ['commit', '-qm', 'init'], { cwd: repo, env });

/** One agent: edits `file` in its own worktree of the repository, on branch `agent/<name>`. */
async function runAgent(name: string, file: string, text: string) {
  const workspace = await GitWorkspace.create({
    kind: 'worktree',
    project: { path: repo, defaultBranch: 'main' },
    projectId: 'example',
    sessionId: name,
    branch: `agent/${name}`,
    root: path.join(dir, 'worktrees'),
  });
  await using lease = await acquireWorkspace(workspace, {
    holderId: name,
    mode: 'exclusive_write',
  });
  const llm = new ScriptedLLM({
    script: [
      { toolCalls: [{ name: 'terminal', arguments: { command: `echo '${text}' >> ${file}` } }] },
      { toolCalls: [{ name: 'finish', arguments: { message: `${file} edited` } }] },
    ],
  });
  const agent = new Agent({ llm, tools: ['TerminalTool'] });
  await using conversation = await Conversation({ agent, workspace });
  await conversation.sendMessage(`Add a line to ${file}.`);
  await conversation.run();
  const identity = await workspace.identity();
  const diff = await workspace.gitDiff(file);
  console.log(
    `${name}: ${identity.projectionKind} at ${path.relative(dir, identity.anchor)}, held by ${lease.holderId}`,
  );
  console.log(`  ${file}: ${JSON.stringify(diff.original)} → ${JSON.stringify(diff.modified)}`);
  // Closing refuses to drop uncommitted work: the agent's change goes onto its branch first.
  await workspace.executeCommand(`git add -A && git commit -qm "${name}: ${file}"`, { env });
  return workspace;
}

try {
  const workspaces = await Promise.all([
    runAgent('alice', 'greeting.txt', 'hello again'),
    runAgent('bob', 'farewell.txt', 'see you'),
  ]);
  const main = await execa('git', ['diff', '--stat'], { cwd: repo });
  console.log(`main checkout untouched: ${main.stdout === '' ? 'yes' : main.stdout}`);
  await Promise.all(workspaces.map((workspace) => workspace.close()));
  const { stdout } = await execa('git', ['worktree', 'list'], { cwd: repo });
  const branches = await execa('git', ['log', '--format=%s', '--branches=agent/*'], { cwd: repo });
  console.log(`after close: ${stdout.split('\n').length} worktree (the main one)`);
  console.log(`on their branches: ${branches.stdout.split('\n').join(', ')}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
