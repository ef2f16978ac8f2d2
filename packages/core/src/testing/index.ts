export { commandSandboxSkipReason } from './command-sandbox-skip-reason.js';
export type { ContractContext } from './contract-context.js';
export {
  describeWorkspaceContract,
  type WorkspaceContractOptions,
} from './describe-workspace-contract.js';
export { expectRejection, rejectionOf } from './rejection-of.js';
export { suiteSkipReason } from './suite-skip-reason.js';
export { type SymlinkFlipper, startSymlinkFlipper } from './symlink-flipper.js';
