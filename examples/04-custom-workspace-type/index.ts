/**
 * A custom workspace type as a user meets it: register the `scratch` kind, build one from JSON
 * config, work in it, watch it refuse a bad config and a path outside it, and see its directory
 * vanish on close.
 *
 * Run: pnpm --filter @agent-workspace/example-custom-workspace-type start
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createWorkspace, WorkspaceError } from '@agent-workspace/core';
import { registerScratchWorkspaceType } from './register-scratch-workspace-type.js';

// Registration comes first: before it, `createWorkspace({ kind: 'scratch' })` is
// UNKNOWN_WORKSPACE_KIND.
registerScratchWorkspaceType();

// The root belongs to this script (it removes it at the end); each workspace owns its directory.
const root = await mkdtemp(path.join(tmpdir(), 'scratch-example-'));
try {
  // Plain JSON, as it could come from a file or a request.
  const config = { kind: 'scratch', name: 'job-42', root, setup: 'git init -q' };
  let workingDir: string;
  {
    await using workspace = await createWorkspace(config);
    workingDir = workspace.workingDir;
    console.log(`1. created   ${workspace.kind} workspace at ${workingDir}`);

    await workspace.executeCommand('echo "draft" > notes.txt && mkdir -p src');
    const note = path.join(root, 'upload.txt');
    await writeFile(note, 'uploaded\n');
    const upload = await workspace.fileUpload(note, 'src/upload.txt');
    const changes = await workspace.gitChanges('.');
    console.log(
      `2. work      upload=${upload.success}, git: ${changes.map((c) => `${c.status} ${c.path}`).join(', ')}`,
    );

    try {
      await workspace.fileUpload(note, '../../escaped.txt');
    } catch (error) {
      if (!WorkspaceError.isInstance(error, 'FORBIDDEN')) throw error;
      console.log(`3. confined  ${error.code}: ${error.message}`);
    }
  } // `await using` closed the workspace here, which deleted its directory.
  console.log(`4. closed    directory still there: ${existsSync(workingDir)}`);

  try {
    await createWorkspace({ kind: 'scratch', name: '../../etc', root });
  } catch (error) {
    if (!WorkspaceError.isInstance(error, 'INVALID_CONFIG')) throw error;
    console.log(
      `5. refused   ${error.code} ${JSON.stringify(error.details.fields)}: ${error.message}`,
    );
  }

  try {
    await createWorkspace({
      kind: 'scratch',
      name: 'broken',
      root,
      setup: 'echo nope >&2; exit 7',
    });
  } catch (error) {
    if (!WorkspaceError.isInstance(error, 'PROVISIONING_ERROR')) throw error;
    console.log(`6. setup     ${error.code}: ${error.message}`);
  }
  const left = (await readdir(root)).filter((entry) => entry !== 'upload.txt');
  console.log(`7. root      left behind by the workspaces: ${JSON.stringify(left)}`);
} finally {
  await rm(root, { recursive: true, force: true });
}
