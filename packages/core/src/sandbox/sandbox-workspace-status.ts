/**
 * Where a `SandboxWorkspace` is: `new`, `starting`, `ready`, `pausing`, `paused`, `resuming`,
 * `exited` (the sandbox died while in use), `failed` (start failed) or `closed`.
 */
export type SandboxWorkspaceStatus =
  | 'new'
  | 'starting'
  | 'ready'
  | 'pausing'
  | 'paused'
  | 'resuming'
  | 'exited'
  | 'failed'
  | 'closed';
