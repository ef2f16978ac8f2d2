import { checkRequirements } from './check-requirements.js';
import { loadRuntimePlugin } from './runtime-plugin-registry.js';

/**
 * Why the runtime plugin `name` cannot start on this machine — it does not load, or a
 * requirement is unmet (with how to install it) — or `undefined` when it can. Nothing is
 * started: only the plugin's requirements are checked.
 *
 * @example
 * ```ts
 * const reason = await runtimePluginUnavailableReason('browser');
 * if (reason) console.warn(`no browser here: ${reason}`);
 * ```
 */
export async function runtimePluginUnavailableReason(
  name: string,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<string | undefined> {
  let plugin: Awaited<ReturnType<typeof loadRuntimePlugin>>;
  try {
    plugin = await loadRuntimePlugin(name);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  const signal = options.signal ?? new AbortController().signal;
  const { problems } = await checkRequirements(plugin.requirements, signal);
  return problems.length > 0 ? problems.join('; ') : undefined;
}
