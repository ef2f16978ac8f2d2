import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe } from 'vitest';
import type { Workspace } from '../workspace/workspace.js';
import { describeCapabilityContract } from './capability-contract.js';
import { describeCommandContract } from './command-contract.js';
import { describeCommandTimeoutContract } from './command-timeout-contract.js';
import type { ContractContext } from './contract-context.js';
import { describeFileContract } from './file-contract.js';
import { describeFileWatchContract } from './file-watch-contract.js';
import { describeForkContract } from './fork-contract.js';
import { describeGitContract } from './git-contract.js';
import { describeLifecycleContract } from './lifecycle-contract.js';

/** Options of {@link describeWorkspaceContract}. */
export interface WorkspaceContractOptions {
  /** Skip the whole suite with this reason (printed loudly). Use for missing engines off CI. */
  skipReason?: string | undefined;
  /**
   * Removes what a fork leaves once closed (a Docker snapshot image; a local fork's directory
   * when it is not under a directory the test removes anyway). Called by the fork section.
   */
  disposeFork?: ((fork: Workspace) => Promise<void>) | undefined;
}

/**
 * The contract every workspace type must pass: commands, cwd rules, env, streaming callbacks,
 * timeouts and tree kill, large and binary output, uploads and downloads (error cases
 * included), git changes and diff on a real repository, close idempotence, and the declared
 * capabilities (whole directories, runtime plugin actions, file watching, forks).
 *
 * @param name - Suite name, e.g. `'LocalWorkspace'`.
 * @param makeWorkspace - Creates a ready workspace whose `workingDir` is writable. Called once for
 * the shared workspace and again by lifecycle tests.
 */
export function describeWorkspaceContract(
  name: string,
  makeWorkspace: () => Promise<Workspace>,
  options: WorkspaceContractOptions = {},
): void {
  const suite = options.skipReason ? describe.skip : describe;
  if (options.skipReason) {
    console.warn(`\n!!! SKIPPING workspace contract "${name}": ${options.skipReason}\n`);
  }
  suite(`workspace contract: ${name}`, () => {
    let shared: Workspace | undefined;
    beforeAll(async () => {
      shared = await makeWorkspace();
    }, 120_000);
    afterAll(async () => {
      await shared?.close();
    }, 60_000);
    const context: ContractContext = {
      workspace: () => {
        if (!shared) throw new Error('the contract workspace was not created');
        return shared;
      },
      makeWorkspace,
      scratchDir: async (label) => {
        const workspace = context.workspace();
        const dir = `${workspace.workingDir}/.contract-${label}-${randomUUID().slice(0, 8)}`;
        const result = await workspace.executeCommand(`mkdir -p '${dir}'`);
        if (result.exitCode !== 0) throw new Error(`cannot create ${dir}: ${result.stderr}`);
        return dir;
      },
      disposeFork: options.disposeFork,
    };
    describeCommandContract(context);
    describeCommandTimeoutContract(context);
    describeFileContract(context);
    describeGitContract(context);
    describeLifecycleContract(context);
    describeCapabilityContract(context);
    describeFileWatchContract(context);
    describeForkContract(context);
  });
}
