import { WorkspaceError } from '@agent-workspace/core';
import type { PluginRequirement } from './plugin-requirement.js';

/**
 * The heavy libraries of the built-in plugins. They are optional peer dependencies of this
 * package: installing it (or the SDK) does not bring them; a plugin imports its own on first use.
 */
export const OPTIONAL_LIBRARIES = {
  'playwright-core': 'the browser plugin',
  turndown: "the browser plugin's page text",
  zeromq: 'the python plugin',
} as const;

/** The name of one of {@link OPTIONAL_LIBRARIES}. */
export type OptionalLibrary = keyof typeof OPTIONAL_LIBRARIES;

/** The command that installs `name`, e.g. `npm install zeromq`. */
export function optionalLibraryInstallCommand(name: OptionalLibrary): string {
  return `npm install ${name}`;
}

/** The plugin requirement for `name`: the host checks it is installed before the plugin starts. */
export function optionalLibraryRequirement(name: OptionalLibrary): PluginRequirement {
  return { kind: 'module', name, install: optionalLibraryInstallCommand(name) };
}

/**
 * Imports the optional library `name` through `load`, a literal `import()` of it (so types and
 * bundlers see the specifier). When the library is not installed this throws a `NOT_FOUND`
 * {@link WorkspaceError} whose message gives the install command; any other failure (a native
 * addon built for another Node, say) propagates unchanged.
 */
export async function importOptionalLibrary<T>(
  name: OptionalLibrary,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isMissingPackage(error, name)) throw error;
    const install = optionalLibraryInstallCommand(name);
    throw new WorkspaceError({
      code: 'NOT_FOUND',
      message: `the Node package ${name} is not installed (${OPTIONAL_LIBRARIES[name]} needs it; it is an optional peer dependency of @agent-workspace/runtime-plugins); install it with: ${install}`,
      cause: error,
      details: { module: name, install },
    });
  }
}

/** Whether `error` is Node's "cannot find package `name`" (and not a missing file inside it). */
function isMissingPackage(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  return typeof message === 'string' && message.includes(`'${name}'`);
}
