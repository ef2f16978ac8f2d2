import type { Workspace } from '../workspace/workspace.js';

/** What each section of the contract suite gets. */
export interface ContractContext {
  /** The workspace shared by the suite (created in `beforeAll`). */
  workspace(): Workspace;
  /** Creates a fresh workspace (for lifecycle tests); the caller closes it. */
  makeWorkspace(): Promise<Workspace>;
  /**
   * Creates an empty directory inside the workspace (via `executeCommand`) and returns its
   * absolute workspace-side path. Every test works in its own scratch directory.
   */
  scratchDir(label: string): Promise<string>;
  /** Removes what a closed fork leaves behind (see `WorkspaceContractOptions.disposeFork`). */
  disposeFork?: ((fork: Workspace) => Promise<void>) | undefined;
}
