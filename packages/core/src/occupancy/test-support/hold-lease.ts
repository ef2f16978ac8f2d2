/**
 * A lease holder in its own process, for the cross-process tests: acquires a lease on a
 * `LocalWorkspace` of argv[2] (records in argv[3], mode argv[4], holder argv[5]), prints one
 * JSON line (`{"ready":true,...}` or `{"error":...}`), then holds until it reads `release` on
 * stdin (or is killed).
 */
import { createInterface } from 'node:readline';
import { WorkspaceError } from '../../errors/workspace-error.js';
import { LocalWorkspace } from '../../local/local-workspace.js';
import { acquireWorkspace } from '../acquire-workspace.js';

const [workingDir, leaseDir, mode, holderId] = process.argv.slice(2);
const workspace = new LocalWorkspace({ workingDir });
try {
  const lease = await acquireWorkspace(workspace, {
    holderId: holderId!,
    mode: mode as 'shared_read' | 'exclusive_write',
    leaseDir,
  });
  process.stdout.write(
    `${JSON.stringify({ ready: true, pid: process.pid, leaseId: lease.leaseId })}\n`,
  );
  // The lease sockets do not keep a process alive; stdin does.
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() === 'release') {
      await lease.release();
      process.stdout.write(`${JSON.stringify({ released: true })}\n`);
      break;
    }
  }
} catch (error) {
  const code = WorkspaceError.isInstance(error) ? error.code : 'UNKNOWN';
  process.stdout.write(`${JSON.stringify({ error: code, message: String(error) })}\n`);
}
await workspace.close();
