import type { TrustBoundaryWire } from '@agent-workspace/protocol';
import type { ResolvedAgentServerOptions } from '../agent-server-options.js';

/** The warning of a server that runs code without a sandbox. */
export const UNCONFINED_CODE_WARNING =
  'code execution is not confined: commands, conversation tools, the IPython kernel and the browser can read and write whatever the server user can, and reach any network it can; start the server with --sandbox';

/**
 * `/server_info` `trust_boundary`: what confines paths, code execution and network on a server
 * with these options, with a sentence for each gap.
 */
export function describeTrustBoundary(options: ResolvedAgentServerOptions): TrustBoundaryWire {
  const { sandbox, confineToWorkingDir } = options;
  const warnings: string[] = [];
  if (!confineToWorkingDir) {
    warnings.push(
      'paths are not confined: file, git and cwd paths may name anything the server user can reach; start the server with --confine-to-working-dir',
    );
  }
  if (sandbox === false) {
    warnings.push(UNCONFINED_CODE_WARNING);
    return {
      paths: confineToWorkingDir ? 'confined' : 'unconfined',
      code_execution: 'unconfined',
      network: 'host',
      allowed_hosts: [],
      warnings,
    };
  }
  if (sandbox.allowHosts === undefined && sandbox.network) {
    warnings.push(
      'sandboxed code shares the host network; restrict it with --allow-host or --no-sandbox-network',
    );
  }
  return {
    paths: confineToWorkingDir ? 'confined' : 'unconfined',
    code_execution: 'sandbox',
    network: sandbox.allowHosts !== undefined ? 'allow_list' : sandbox.network ? 'host' : 'none',
    allowed_hosts: sandbox.allowHosts ?? [],
    warnings,
  };
}
