/**
 * Starts an agent-server on loopback with a random session key and drives it with
 * RemoteWorkspace: streamed output, a timeout, a file round trip and git changes. The same
 * client works against any OpenHands-compatible agent-server (`host` + `apiKey`).
 *
 * Run: pnpm --filter @agent-workspace/example-remote-workspace start
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAgentServer } from '@agent-workspace/agent-server';
import { RemoteWorkspace } from '@agent-workspace/core';

const root = await mkdtemp(path.join(tmpdir(), 'agent-workspace-remote-'));
const apiKey = randomBytes(16).toString('hex');
try {
  await using server = await createAgentServer({
    port: 0,
    workingDir: root,
    sessionApiKeys: [apiKey],
    logLevel: 'warn',
  });
  await using workspace = new RemoteWorkspace({ host: server.url, workingDir: root, apiKey });
  const info = await workspace.serverInfo();
  console.log(
    `agent-server ${info.version} at ${server.url}, capabilities: ${info.capabilities.join(', ')}`,
  );

  const ticks: string[] = [];
  const counted = await workspace.executeCommand(
    'for i in 1 2 3; do echo "tick $i"; sleep 0.1; done',
    {
      onStdout: (chunk) => ticks.push(chunk.trim()),
    },
  );
  console.log(
    `1. streaming exit=${counted.exitCode}, ${ticks.length} chunks: ${ticks.join(' | ')}`,
  );

  const slow = await workspace.executeCommand('echo started; sleep 60', { timeoutMs: 500 });
  console.log(
    `2. timeout   timeoutOccurred=${slow.timeoutOccurred} exit=${slow.exitCode} output=${JSON.stringify(slow.stdout.trim())}`,
  );

  const local = path.join(tmpdir(), `remote-note-${process.pid}.txt`);
  await writeFile(local, 'travels over HTTP\n');
  const upload = await workspace.fileUpload(local, 'notes/note.txt');
  const download = await workspace.fileDownload('notes/note.txt', `${local}.back`);
  console.log(
    `3. files     upload=${upload.success} download=${download.success}: ${JSON.stringify((await readFile(`${local}.back`, 'utf8')).trim())}`,
  );
  await rm(local, { force: true });
  await rm(`${local}.back`, { force: true });

  await workspace.executeCommand(
    'git init -q repo && cd repo && git config user.email demo@example.com && git config user.name demo && echo a > a.txt && git add . && git commit -qm init && git mv a.txt b.txt && echo new > c.txt',
  );
  const changes = await workspace.gitChanges('repo');
  console.log(
    `4. git       ${changes.map((change) => `${change.status} ${change.path}`).join(', ')}`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
