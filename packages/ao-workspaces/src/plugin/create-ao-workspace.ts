import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import {
  CloneProvisioner,
  type ManagedTreeProvisioner,
  type ProjectConfig,
  type ProvisionConfig,
  type WorkspaceInfo,
  WorktreeProvisioner,
} from '@agent-workspace/git-workspaces';
import type {
  AoProjectConfig,
  AoWorkspace,
  AoWorkspaceCreateConfig,
  AoWorkspaceInfo,
} from './ao-workspace.js';
import { expandHome } from './expand-home.js';
import {
  type AoRefusal,
  type AoWarning,
  type AoWorkspacesOptions,
  parseAoWorkspacesOptions,
} from './parse-ao-workspaces-options.js';

/** The error codes reported to `onRefusal` (each is still thrown). */
export const AO_REFUSAL_CODES = ['ALREADY_EXISTS', 'FORBIDDEN', 'WORKSPACE_OCCUPIED'] as const;

/** Options of {@link createAoWorkspace}. */
export interface CreateAoWorkspaceOptions extends AoWorkspacesOptions {
  /** `'worktree'` (linked worktrees) or `'clone'` (full clones). */
  kind: 'worktree' | 'clone';
}

/**
 * Makes an ao-core `Workspace` plugin instance backed by a `WorktreeProvisioner` or
 * `CloneProvisioner`. ao's `ProjectConfig` is mapped onto ours (`~` expanded in `path`, only
 * `path`, `defaultBranch`, `symlinks` and `postCreate` read). Every error is thrown with its
 * message; refusals (`ALREADY_EXISTS`, `FORBIDDEN`, `WORKSPACE_OCCUPIED`) also go to
 * `onRefusal` first, and the warnings of a successful `create` or `restore` to `onWarning`. Bad options throw `INVALID_CONFIG` naming the field.
 */
export function createAoWorkspace(options: CreateAoWorkspaceOptions): AoWorkspace {
  const { kind, ...config } = options;
  return createAoWorkspaceOfKind(kind, config);
}

/**
 * {@link createAoWorkspace} for a plugin module's `create(config)`: `config` is an unchecked
 * {@link AoWorkspacesOptions} record (or `undefined`).
 */
export function createAoWorkspaceOfKind(kind: 'worktree' | 'clone', config: unknown): AoWorkspace {
  if (kind !== 'worktree' && kind !== 'clone') {
    throw new WorkspaceError({
      code: 'INVALID_CONFIG',
      message: `kind must be "worktree" or "clone", got ${JSON.stringify(kind)}`,
      details: { field: 'kind', fields: ['kind'] },
    });
  }
  const resolved = parseAoWorkspacesOptions(config);
  const provisionerOptions = {
    root: resolved.root,
    reapOnStart: resolved.reapOnStart,
    reapTimeoutMs: resolved.reapTimeoutMs,
  };
  const provisioner: ManagedTreeProvisioner =
    kind === 'worktree'
      ? new WorktreeProvisioner(provisionerOptions)
      : new CloneProvisioner(provisionerOptions);
  const warned = (operation: AoWarning['operation'], info: WorkspaceInfo): WorkspaceInfo => {
    for (const message of info.warnings ?? []) {
      resolved.onWarning({ operation, path: info.path, message });
    }
    return info;
  };
  const reported = async <T>(operation: AoRefusal['operation'], run: () => Promise<T>) => {
    try {
      return await run();
    } catch (error) {
      if (
        WorkspaceError.isInstance(error) &&
        (AO_REFUSAL_CODES as readonly string[]).includes(error.code)
      ) {
        resolved.onRefusal({ operation, error });
      }
      throw error;
    }
  };

  return {
    name: kind,
    create: (cfg) =>
      reported('create', async () =>
        toAoInfo(warned('create', await provisioner.create(toProvisionConfig(cfg)))),
      ),
    destroy: (workspacePath) =>
      reported('destroy', async () => {
        await provisioner.destroy(expandHome(workspacePath), { force: resolved.forceDestroy });
      }),
    list: async (projectId) => (await provisioner.list(projectId)).map(toAoInfo),
    postCreate: (info, project) =>
      reported('postCreate', async () => {
        await provisioner.postCreate(
          { ...toAoInfo(info), path: expandHome(info.path) },
          toProjectConfig(project),
          { timeoutMs: resolved.postCreateTimeoutMs, onFailure: 'fail' },
        );
      }),
    exists: (workspacePath) => provisioner.exists(expandHome(workspacePath)),
    restore: (cfg, workspacePath) =>
      reported('restore', async () =>
        toAoInfo(
          warned(
            'restore',
            await provisioner.restore(toProvisionConfig(cfg), expandHome(workspacePath)),
          ),
        ),
      ),
  };
}

/** ao's create config → ours; shape errors are left to the provisioner, which names the field. */
function toProvisionConfig(config: AoWorkspaceCreateConfig): ProvisionConfig {
  if (typeof config !== 'object' || config === null) {
    throw new WorkspaceError({
      code: 'INVALID_CONFIG',
      message: 'workspace create config must be an object',
      details: { field: '(config)', fields: ['(config)'] },
    });
  }
  const { projectId, project, sessionId, branch } = config;
  return { projectId, project: toProjectConfig(project), sessionId, branch };
}

function toProjectConfig(project: AoProjectConfig): ProjectConfig {
  if (typeof project !== 'object' || project === null) {
    throw new WorkspaceError({
      code: 'INVALID_CONFIG',
      message: 'project must be an object',
      details: { field: 'project', fields: ['project'] },
    });
  }
  const { path: projectPath, defaultBranch, symlinks, postCreate } = project;
  return {
    path:
      typeof projectPath === 'string' && projectPath !== ''
        ? path.resolve(expandHome(projectPath))
        : projectPath,
    defaultBranch,
    ...(symlinks === undefined ? {} : { symlinks }),
    ...(postCreate === undefined ? {} : { postCreate }),
  };
}

function toAoInfo(info: WorkspaceInfo | AoWorkspaceInfo): AoWorkspaceInfo {
  return {
    path: info.path,
    branch: info.branch,
    sessionId: info.sessionId,
    projectId: info.projectId,
  };
}
