// Smoke test of @agent-workspace/core installed alone: a local workspace runs a command, moves a
// file, reports a missing one, and refuses a bad config by its stable code.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createWorkspace, LocalWorkspace, WorkspaceError } from '@agent-workspace/core';

const root = await mkdtemp(path.join(tmpdir(), 'core-smoke-'));
// Node 20 has no `await using`: dispose by hand.
const workspace = new LocalWorkspace({ workingDir: root });
const fromConfig = await createWorkspace({ workingDir: root });
try {
  const result = await workspace.executeCommand('printf "%s" "$((6 * 7))"');
  assert.equal(result.exitCode, 0);
  assert.equal(result.stdout, '42');
  const source = path.join(root, 'source.txt');
  await writeFile(source, 'payload');
  await workspace.fileDownload('source.txt', path.join(root, 'copy.txt'));
  assert.equal(await readFile(path.join(root, 'copy.txt'), 'utf8'), 'payload');
  const missing = await workspace.fileDownload('missing.txt', path.join(root, 'x'));
  assert.equal(missing.success, false);
  await assert.rejects(
    () => createWorkspace({ workingDir: 42 }),
    (error) => error instanceof WorkspaceError && error.code === 'INVALID_CONFIG',
  );
  assert.equal((await fromConfig.executeCommand('pwd')).stdout.trim(), root);
} finally {
  await workspace[Symbol.asyncDispose]();
  await fromConfig[Symbol.asyncDispose]();
  await rm(root, { recursive: true, force: true });
}
console.log('core ok');
