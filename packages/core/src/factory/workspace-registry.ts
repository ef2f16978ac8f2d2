import type { z } from 'zod';
import { WorkspaceError } from '../errors/workspace-error.js';
import type { Workspace } from '../workspace/workspace.js';

/** A workspace type that {@link createWorkspace} can build from plain JSON config. */
export interface WorkspaceTypeDefinition<TSchema extends z.ZodType = z.ZodType> {
  /** The `kind` discriminator of configs of this type (e.g. `'docker'`). */
  kind: string;
  /** Validates the config (the whole object, `kind` included). */
  schema: TSchema;
  /** Builds a ready workspace from validated config. */
  create: (config: z.output<TSchema>) => Workspace | Promise<Workspace>;
}

const registryKey = Symbol.for('agent-workspace.workspace-registry');

/** One registry per process, shared by every installed copy of this package. */
function registry(): Map<string, WorkspaceTypeDefinition> {
  const global = globalThis as { [registryKey]?: Map<string, WorkspaceTypeDefinition> };
  global[registryKey] ??= new Map();
  return global[registryKey];
}

/**
 * Adds a workspace type so `createWorkspace({ kind, ... })` can build it.
 * Throws `DUPLICATE_WORKSPACE_KIND` when the kind is taken. Returns a function that removes it.
 */
export function registerWorkspaceType<TSchema extends z.ZodType>(
  definition: WorkspaceTypeDefinition<TSchema>,
): () => void {
  const { kind } = definition;
  if (typeof kind !== 'string' || !/^[a-z][a-z0-9-]*$/.test(kind)) {
    throw new WorkspaceError({
      code: 'INVALID_ARGUMENT',
      message: `kind must be lower-case letters, digits and dashes, got ${JSON.stringify(kind)}`,
      details: { field: 'kind' },
    });
  }
  const types = registry();
  if (types.has(kind)) {
    throw new WorkspaceError({
      code: 'DUPLICATE_WORKSPACE_KIND',
      message: `a workspace type of kind "${kind}" is already registered`,
      details: { kind },
    });
  }
  types.set(kind, definition as unknown as WorkspaceTypeDefinition);
  return () => {
    if (types.get(kind) === (definition as unknown)) types.delete(kind);
  };
}

/** Returns the registered type of `kind`, if any. */
export function getWorkspaceType(kind: string): WorkspaceTypeDefinition | undefined {
  return registry().get(kind);
}

/** Lists the registered kinds. */
export function listWorkspaceKinds(): string[] {
  return [...registry().keys()].sort();
}
