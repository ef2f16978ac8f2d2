import type { ContractContext } from './contract-context.js';

/** Git section of the workspace contract. TODO(helper): implement. */
export function describeGitContract(_context: ContractContext): void {}
