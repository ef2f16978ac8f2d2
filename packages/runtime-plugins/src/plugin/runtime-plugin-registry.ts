import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { invalidArgument } from '@agent-workspace/core';
import type { RuntimePlugin } from './runtime-plugin.js';

/** Makes a fresh plugin instance. */
export type RuntimePluginFactory = () => RuntimePlugin | Promise<RuntimePlugin>;

const factories = new Map<string, RuntimePluginFactory>([
  ['browser', async () => (await import('../browser/browser-plugin.js')).createBrowserPlugin()],
  ['python', async () => (await import('../python/python-plugin.js')).createPythonPlugin()],
]);

/** Names of the built-in plugins. */
export const BUILT_IN_RUNTIME_PLUGINS = ['browser', 'python'] as const;

/** The built-in plugin that runs each of OpenHands' plugin actions. */
export const BUILT_IN_PLUGIN_ACTIONS: Readonly<Record<string, string>> = {
  browse: 'browser',
  browse_interactive: 'browser',
  run_ipython: 'python',
};

const PLUGIN_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

/**
 * Registers a plugin factory under `name`, so `--plugin name` and `plugins: ['name']` load it.
 *
 * @throws WorkspaceError `INVALID_ARGUMENT` for a malformed name or one already registered.
 */
export function registerRuntimePlugin(name: string, factory: RuntimePluginFactory): void {
  if (!PLUGIN_NAME.test(name)) {
    throw invalidArgument(
      'name',
      `must be lowercase letters, digits, "-" or "_": ${JSON.stringify(name)}`,
    );
  }
  if (factories.has(name))
    throw invalidArgument('name', `a runtime plugin named ${name} is already registered`);
  factories.set(name, factory);
}

/**
 * A fresh plugin for `reference`: a registered name (`browser`, `python`, or one given to
 * {@link registerRuntimePlugin}), or else a package or file that exports a plugin — as
 * `default`, `plugin` or `createPlugin` (a plugin or a function returning one) — resolved from
 * the current directory.
 *
 * @throws WorkspaceError `INVALID_ARGUMENT` (field `plugins`) when nothing by that name loads or
 * what loads is not a plugin.
 */
export async function loadRuntimePlugin(reference: string): Promise<RuntimePlugin> {
  const factory = factories.get(reference);
  if (factory) return assertPlugin(await factory(), reference);
  let url: string;
  try {
    const resolved = createRequire(path.join(process.cwd(), 'index.js')).resolve(reference);
    url = pathToFileURL(resolved).href;
  } catch {
    throw invalidArgument(
      'plugins',
      `${JSON.stringify(reference)} is neither a known plugin (${[...factories.keys()].join(', ')}) nor an installed package`,
    );
  }
  const loaded = (await importModule(url)) as Record<string, unknown>;
  const exported = loaded.default ?? loaded.plugin ?? loaded.createPlugin;
  const plugin =
    typeof exported === 'function' ? await (exported as RuntimePluginFactory)() : exported;
  return assertPlugin(plugin, reference);
}

/**
 * The key under which the agent-server bundle's launcher leaves its own `import()`: code the
 * launcher compiles from a V8 code cache has none that works, and plugin packages may be ES
 * modules.
 */
const LAUNCHER_IMPORT = Symbol.for('agent-workspace.launcher-import');

function importModule(url: string): Promise<unknown> {
  const launcherImport = (globalThis as Record<symbol, unknown>)[LAUNCHER_IMPORT];
  return typeof launcherImport === 'function'
    ? (launcherImport as (specifier: string) => Promise<unknown>)(url)
    : import(url);
}

function assertPlugin(candidate: unknown, reference: string): RuntimePlugin {
  const plugin = candidate as Partial<RuntimePlugin> | undefined;
  const valid =
    typeof plugin === 'object' &&
    plugin !== null &&
    typeof plugin.name === 'string' &&
    PLUGIN_NAME.test(plugin.name) &&
    typeof plugin.initialize === 'function' &&
    typeof plugin.close === 'function' &&
    typeof plugin.health === 'function' &&
    typeof plugin.actions === 'object' &&
    Array.isArray(plugin.requirements) &&
    Array.isArray(plugin.capabilities);
  if (!valid) {
    throw invalidArgument(
      'plugins',
      `${JSON.stringify(reference)} does not export a runtime plugin (name, requirements, capabilities, actions, initialize, health, close)`,
    );
  }
  return plugin as RuntimePlugin;
}
