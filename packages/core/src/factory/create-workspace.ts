import type { z } from 'zod';
import { WorkspaceError } from '../errors/workspace-error.js';
import { LocalWorkspace } from '../local/local-workspace.js';
import { RemoteWorkspace } from '../remote/remote-workspace.js';
import type { Workspace } from '../workspace/workspace.js';
import { unknownWorkspaceKindMessage } from './unknown-workspace-kind-message.js';
import type {
  localWorkspaceConfigSchema,
  remoteWorkspaceConfigSchema,
} from './workspace-config-schemas.js';
import {
  getWorkspaceType,
  listWorkspaceKinds,
  registerWorkspaceType,
} from './workspace-registry.js';

/** Config of a {@link LocalWorkspace}: `{ workingDir }`, `kind` optional. */
export type LocalWorkspaceConfig = z.input<typeof localWorkspaceConfigSchema>;
/** Config of a {@link RemoteWorkspace}: `{ host, workingDir, apiKey? }`, `kind` optional. */
export type RemoteWorkspaceConfig = z.input<typeof remoteWorkspaceConfigSchema>;
/** Config of a registered extension type; `kind` picks the type. */
export interface ExtensionWorkspaceConfig {
  kind: string;
  [field: string]: unknown;
}
/** Anything {@link createWorkspace} accepts. */
export type WorkspaceConfig =
  | LocalWorkspaceConfig
  | RemoteWorkspaceConfig
  | ExtensionWorkspaceConfig;

/** Registers `local` and `remote`, loading their zod schemas only now, at the first build. */
async function registerBuiltInTypes(): Promise<void> {
  const { localWorkspaceConfigSchema, remoteWorkspaceConfigSchema } = await import(
    './workspace-config-schemas.js'
  );
  if (!getWorkspaceType('local')) {
    registerWorkspaceType({
      kind: 'local',
      schema: localWorkspaceConfigSchema,
      create: ({ kind: _kind, ...options }) => new LocalWorkspace(options),
    });
  }
  if (!getWorkspaceType('remote')) {
    registerWorkspaceType({
      kind: 'remote',
      schema: remoteWorkspaceConfigSchema,
      create: ({ kind: _kind, ...options }) => new RemoteWorkspace(options),
    });
  }
}

/**
 * Builds a workspace from plain JSON config. `{ workingDir }` is a local workspace,
 * `{ host, workingDir, apiKey? }` a remote one, and `{ kind, ... }` any type added with
 * `registerWorkspaceType`. Invalid config is an `INVALID_CONFIG` error naming the field.
 */
export async function createWorkspace(config: WorkspaceConfig): Promise<Workspace> {
  await registerBuiltInTypes();
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new WorkspaceError({ code: 'INVALID_CONFIG', message: 'config must be an object' });
  }
  const record = config as Record<string, unknown>;
  const kind = record.kind ?? ('host' in record ? 'remote' : 'local');
  if (typeof kind !== 'string') {
    throw new WorkspaceError({
      code: 'INVALID_CONFIG',
      message: `kind must be a string, got ${typeof kind}`,
      details: { field: 'kind' },
    });
  }
  const type = getWorkspaceType(kind);
  if (!type) {
    throw new WorkspaceError({
      code: 'UNKNOWN_WORKSPACE_KIND',
      message: unknownWorkspaceKindMessage({ kind, registered: listWorkspaceKinds() }),
      details: { kind },
    });
  }
  const parsed = type.schema.safeParse(config);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(config)'}: ${issue.message}`)
      .join('; ');
    throw new WorkspaceError({
      code: 'INVALID_CONFIG',
      message: `invalid ${kind} workspace config: ${issues}`,
      cause: parsed.error,
      details: { kind, fields: parsed.error.issues.map((issue) => issue.path.join('.')) },
    });
  }
  return type.create(parsed.data);
}
