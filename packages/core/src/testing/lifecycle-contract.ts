import type { ContractContext } from './contract-context.js';

/** Lifecycle section of the workspace contract. TODO(helper): implement. */
export function describeLifecycleContract(_context: ContractContext): void {}
