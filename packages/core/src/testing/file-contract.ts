import type { ContractContext } from './contract-context.js';

/** File section of the workspace contract. TODO(helper): implement. */
export function describeFileContract(_context: ContractContext): void {}
