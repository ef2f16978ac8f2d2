/**
 * A tour of LocalWorkspace: a command, streaming output, a timeout that kills a process tree,
 * a file round trip and the git changes of a throwaway repository.
 *
 * Run: pnpm --filter @agent-workspace/example-local-workspace start
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalWorkspace } from '@agent-workspace/core';

const root = await mkdtemp(path.join(tmpdir(), 'agent-workspace-tour-'));
try {
  await using workspace = new LocalWorkspace({ workingDir: root });
  console.log(`workspace: ${workspace.kind} at ${workspace.workingDir}`);

  const hello = await workspace.executeCommand('echo "hello from $(basename "$PWD")"; exit 3');
  // A non-zero exit is a result, not an error: the script exits 3 on purpose to show it.
  console.log(
    `1. command   exit=${hello.exitCode} (the script exits 3 on purpose) stdout=${JSON.stringify(hello.stdout.trim())}`,
  );

  const chunks: string[] = [];
  await workspace.executeCommand('for i in 1 2 3; do echo "tick $i"; sleep 0.1; done', {
    onStdout: (chunk) => chunks.push(chunk.trim()),
  });
  console.log(`2. streaming ${chunks.length} chunks: ${chunks.join(' | ')}`);

  const slow = await workspace.executeCommand('echo started; sleep 60 & sleep 60', {
    timeoutMs: 500,
  });
  console.log(
    `3. timeout   timeoutOccurred=${slow.timeoutOccurred} exit=${slow.exitCode} after ${Math.round(slow.durationMs)} ms, output=${JSON.stringify(slow.stdout.trim())}`,
  );

  const local = path.join(root, '..', `${path.basename(root)}-note.txt`);
  await writeFile(local, 'notes travel both ways\n');
  const upload = await workspace.fileUpload(local, 'docs/note.txt');
  const download = await workspace.fileDownload('docs/note.txt', `${local}.back`);
  const back = await readFile(`${local}.back`, 'utf8');
  console.log(
    `4. files     upload=${upload.success} download=${download.success} (${download.fileSize} bytes): ${JSON.stringify(back.trim())}`,
  );
  await rm(local, { force: true });
  await rm(`${local}.back`, { force: true });

  await workspace.executeCommand(
    [
      'git init -q repo && cd repo',
      'git config user.email tour@example.com && git config user.name tour',
      'echo one > kept.txt && echo two > "old name.txt" && git add . && git commit -qm init',
      'echo changed >> kept.txt && git mv "old name.txt" "new name.txt" && echo new > added.txt',
    ].join(' && '),
  );
  const changes = await workspace.gitChanges('repo');
  console.log(
    `5. git       ${changes.map((change) => `${change.status} ${change.path}`).join(', ')}`,
  );
  const diff = await workspace.gitDiff('repo/kept.txt');
  console.log(
    `   diff      original=${JSON.stringify(diff.original)} modified=${JSON.stringify(diff.modified)}`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
