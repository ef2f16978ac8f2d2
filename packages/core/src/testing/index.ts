export type { ContractContext } from './contract-context.js';
export {
  describeWorkspaceContract,
  type WorkspaceContractOptions,
} from './describe-workspace-contract.js';
export { expectRejection, rejectionOf } from './rejection-of.js';
