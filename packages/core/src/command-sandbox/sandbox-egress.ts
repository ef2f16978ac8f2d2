import { realpath } from 'node:fs/promises';
import { invalidArgument } from '../errors/invalid-argument.js';
import { signalProcessGroup } from '../internal/process/kill-process-group.js';
import type { CommandSandbox } from '../workspace/command-sandbox.js';
import { isSameOrInside } from './bubblewrap-arguments.js';
import { EgressAllowList } from './egress-allow-list.js';
import { type EgressBridge, startEgressBridge } from './egress-bridge.js';
import { EGRESS_SOURCE_PATTERN, type EgressPolicy, type EgressRefusal } from './egress-policy.js';
import type { EgressProxy } from './egress-proxy.js';

/** What `NO_PROXY` lists: the sandbox's own loopback, reached directly. */
const NO_PROXY = 'localhost,127.0.0.1,::1';

/**
 * The egress side of a sandbox with a policy: the proxy in this process, the host paths the
 * sandbox must show read-only for it (the proxy's socket directory, and node when it is not
 * under /usr), and, once the sandbox runs, the bridge inside that reaches it.
 */
export class SandboxEgress {
  readonly proxy: EgressProxy;
  /** Host paths to show read-only inside the sandbox. */
  readonly readOnlyPaths: readonly string[];
  readonly #node: string;
  #bridge: EgressBridge | undefined;

  private constructor(proxy: EgressProxy, node: string) {
    this.proxy = proxy;
    this.#node = node;
    this.readOnlyPaths = [proxy.socketDir, ...(isSameOrInside(node, '/usr') ? [] : [node])];
  }

  /** Starts the proxy (loading the proxy library) for `allowList`. */
  static async start(options: {
    allowList: EgressAllowList;
    onRefused: ((refusal: EgressRefusal) => void) | undefined;
  }): Promise<SandboxEgress> {
    const node = await realpath(process.execPath);
    const { EgressProxy } = await import('./egress-proxy.js');
    return new SandboxEgress(await EgressProxy.start(options), node);
  }

  /** Starts the bridge inside `sandbox` and waits until it listens. */
  async bridge(sandbox: CommandSandbox, signal: AbortSignal | undefined): Promise<void> {
    this.#bridge = await startEgressBridge({
      sandbox,
      node: this.#node,
      socketPath: this.proxy.socketPath,
      signal,
    });
  }

  /** See `BubblewrapSandbox.proxyEnvironment`; `{}` before the bridge listens. */
  environment(source: string): Record<string, string> {
    const port = this.#bridge?.port;
    if (port === undefined) return {};
    const url = `http://${source}@127.0.0.1:${port}`;
    return {
      HTTP_PROXY: url,
      HTTPS_PROXY: url,
      http_proxy: url,
      https_proxy: url,
      NO_PROXY,
      no_proxy: NO_PROXY,
      NODE_USE_ENV_PROXY: '1',
    };
  }

  /**
   * Ends the host side of the bridge (its process inside died with the sandbox's pid namespace),
   * stops the proxy and removes its socket directory.
   */
  async close(): Promise<void> {
    const bridge = this.#bridge?.process;
    if (bridge?.pid !== undefined) {
      signalProcessGroup(bridge.pid, 'SIGKILL');
      await bridge.exit.catch(() => {});
    }
    await this.proxy.close();
  }
}

/**
 * The allow-list of `network` when it is an egress policy; `undefined` for a boolean or nothing.
 *
 * @throws WorkspaceError `INVALID_ARGUMENT` naming `network` or `network.allowHosts[i]`.
 */
export function egressAllowList(network: unknown): EgressAllowList | undefined {
  if (network === undefined || typeof network === 'boolean') return undefined;
  if (typeof network !== 'object' || network === null || Array.isArray(network)) {
    throw invalidArgument(
      'network',
      `must be a boolean or { allowHosts: string[] }, got ${Array.isArray(network) ? 'an array' : typeof network}`,
    );
  }
  const extra = Object.keys(network).filter((key) => key !== 'allowHosts');
  if (extra.length > 0) {
    throw invalidArgument(
      'network',
      `has unknown fields (${extra.join(', ')}); it takes only allowHosts`,
    );
  }
  return EgressAllowList.parse((network as EgressPolicy).allowHosts, 'network.allowHosts');
}

/**
 * Checks a proxy user name: 1 to 64 of `A-Z a-z 0-9 . _ ~ -`.
 * @throws WorkspaceError `INVALID_ARGUMENT` (field `source`).
 */
export function assertEgressSource(source: unknown): void {
  if (typeof source !== 'string' || !EGRESS_SOURCE_PATTERN.test(source)) {
    throw invalidArgument(
      'source',
      `must be 1 to 64 letters, digits, ".", "_", "~" or "-", got ${JSON.stringify(source)}`,
    );
  }
}
