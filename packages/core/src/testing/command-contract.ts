import type { ContractContext } from './contract-context.js';

/** Command section of the workspace contract. TODO(helper): implement. */
export function describeCommandContract(_context: ContractContext): void {}
