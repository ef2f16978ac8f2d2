import type { SandboxProbe } from './diagnose-sandbox.js';
import type { SandboxEndpoint } from './sandbox-endpoint.js';
import type { ReleaseSandboxOptions, SandboxHookOptions } from './sandbox-hooks.js';

/** What `SandboxLifecycle` needs from its workspace: its identity and sandbox hooks. */
export interface SandboxDriver extends SandboxProbe {
  /** The workspace's `workingDir`, for the inner client. */
  readonly workingDir: string;
  /** True once `close()` was called. */
  closed(): boolean;
  /** Throws `WORKSPACE_CLOSED` after `close()`. */
  assertOpen(): void;
  /** Creates the sandbox without starting it. */
  createSandbox(options: SandboxHookOptions): Promise<void>;
  /** Starts the sandbox; returns how to reach its agent-server. */
  startSandbox(options: SandboxHookOptions): Promise<SandboxEndpoint>;
  /** Releases what `createSandbox()` made. */
  releaseSandbox(options: ReleaseSandboxOptions): Promise<void>;
  /** Suspends the sandbox. */
  pauseSandbox(options: SandboxHookOptions): Promise<void>;
  /** Resumes the suspended sandbox; returns its endpoint when that changed. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a hook whose address never changes returns nothing
  resumeSandbox(options: SandboxHookOptions): Promise<SandboxEndpoint | undefined | void>;
}
