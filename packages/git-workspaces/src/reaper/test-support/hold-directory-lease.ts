/**
 * A lease holder in its own process, for the tree occupancy tests: acquires a lease on a
 * `LocalWorkspace` of argv[2] (mode argv[3], holder argv[4], default lease directory), prints
 * one JSON line (`{"ready":true,...}` or `{"error":...}`), then holds until killed.
 */
import { acquireWorkspace, LocalWorkspace, WorkspaceError } from '@agent-workspace/core';

const [workingDir, mode, holderId] = process.argv.slice(2);
try {
  const lease = await acquireWorkspace(new LocalWorkspace({ workingDir: workingDir! }), {
    holderId: holderId!,
    mode: mode as 'shared_read' | 'exclusive_write',
  });
  process.stdout.write(
    `${JSON.stringify({ ready: true, pid: process.pid, leaseId: lease.leaseId })}\n`,
  );
  // The lease sockets do not keep a process alive; this timer does, until the test kills it.
  setInterval(() => {}, 60_000);
} catch (error) {
  const code = WorkspaceError.isInstance(error) ? error.code : 'UNKNOWN';
  process.stdout.write(`${JSON.stringify({ error: code, message: String(error) })}\n`);
}
