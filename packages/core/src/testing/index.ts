export type { ContractContext } from './contract-context.js';
export {
  describeWorkspaceContract,
  type WorkspaceContractOptions,
} from './describe-workspace-contract.js';
