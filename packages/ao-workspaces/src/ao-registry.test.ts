import { execFile } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { WorkspaceError } from '@agent-workspace/core';
import {
  createPluginRegistry,
  type PluginModule,
  type ProjectConfig,
  type Workspace,
} from '@composio/ao-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AoRefusal, type AoWarning, clone, createAoWorkspace, worktree } from './index.js';

const execFileAsync = promisify(execFile);
const identity = {
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.test',
  GIT_COMMITTER_NAME: 'Test Committer',
  GIT_COMMITTER_EMAIL: 'committer@example.test',
};

async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', args, {
    cwd,
    env: { ...process.env, ...identity },
  });
  return stdout.trim();
}

let base: string;
let projectPath: string;
let root: string;

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'ao-ws-'));
  projectPath = path.join(base, 'project');
  root = path.join(base, 'root');
  await mkdir(path.join(projectPath, 'node_modules', 'dep'), { recursive: true });
  await writeFile(path.join(projectPath, 'node_modules', 'dep', 'index.js'), 'export {};\n');
  await writeFile(path.join(projectPath, 'README.md'), '# project\n');
  await writeFile(path.join(projectPath, '.gitignore'), 'node_modules/\n*.log\n');
  await git(projectPath, 'init', '-q', '-b', 'main');
  await git(projectPath, 'add', '-A');
  await git(projectPath, 'commit', '-q', '-m', 'initial');
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** An ao-core project as ao's config loader hands it to workspace plugins. */
function aoProject(overrides: Partial<ProjectConfig> = {}): ProjectConfig {
  return {
    name: 'App',
    repo: 'example/app',
    path: projectPath,
    defaultBranch: 'main',
    sessionPrefix: 'app',
    symlinks: ['node_modules'],
    postCreate: ['git rev-parse --abbrev-ref HEAD > post-create.log'],
    ...overrides,
  };
}

describe.each([
  { kind: 'worktree' as const, module: worktree },
  { kind: 'clone' as const, module: clone },
])('$kind plugin in ao-core 0.2.0 registry', ({ kind, module }) => {
  function load(config: Record<string, unknown>): { workspace: Workspace; refusals: AoRefusal[] } {
    const refusals: AoRefusal[] = [];
    const registry = createPluginRegistry();
    const plugin: PluginModule<Workspace> = module;
    registry.register(plugin, {
      root,
      onRefusal: (refusal: AoRefusal) => refusals.push(refusal),
      ...config,
    });
    expect(registry.list('workspace')).toEqual([module.manifest]);
    const workspace = registry.get<Workspace>('workspace', kind);
    if (!workspace) throw new Error(`registry has no workspace:${kind}`);
    return { workspace, refusals };
  }

  it('drives create → postCreate → list → exists → restore → destroy', async () => {
    const { workspace, refusals } = load({});
    expect(workspace.name).toBe(kind);
    const project = aoProject();
    const config = { projectId: 'app', project, sessionId: 'app-1', branch: 'feat/app-1' };

    const info = await workspace.create(config);
    const tree = path.join(root, 'app', 'app-1');
    expect(info).toEqual({
      path: tree,
      branch: 'feat/app-1',
      sessionId: 'app-1',
      projectId: 'app',
    });
    expect(await git(tree, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('feat/app-1');

    await workspace.postCreate?.(info, project);
    expect((await lstat(path.join(tree, 'node_modules'))).isSymbolicLink()).toBe(true);
    expect(await readFile(path.join(tree, 'node_modules', 'dep', 'index.js'), 'utf8')).toBe(
      'export {};\n',
    );
    expect(await readFile(path.join(tree, 'post-create.log'), 'utf8')).toBe('feat/app-1\n');

    expect(await workspace.list('app')).toEqual([info]);
    expect(await workspace.exists?.(tree)).toBe(true);
    expect(await workspace.exists?.(projectPath)).toBe(false);

    // Work committed on the branch (and, for a clone, pushed to the project) survives losing the tree.
    await writeFile(path.join(tree, 'feature.txt'), 'work\n');
    await git(tree, 'add', 'feature.txt');
    await git(tree, 'commit', '-q', '-m', 'feature');
    if (kind === 'clone') await git(tree, 'push', '-q', 'origin', 'feat/app-1');
    await rm(tree, { recursive: true, force: true });
    expect(await workspace.exists?.(tree)).toBe(false);

    const restored = await workspace.restore?.(config, tree);
    expect(restored).toEqual(info);
    expect(await workspace.exists?.(tree)).toBe(true);
    expect(await readFile(path.join(tree, 'feature.txt'), 'utf8')).toBe('work\n');
    await workspace.postCreate?.(info, project);
    expect((await lstat(path.join(tree, 'node_modules'))).isSymbolicLink()).toBe(true);

    await workspace.destroy(tree);
    expect(await workspace.exists?.(tree)).toBe(false);
    expect(await workspace.list('app')).toEqual([]);
    // destroy keeps the branch
    expect(await git(projectPath, 'rev-parse', '--verify', '-q', 'refs/heads/feat/app-1')).not.toBe(
      '',
    );
    expect(refusals).toEqual([]);
  });

  it('expands ~ in project.path and root', async () => {
    const home = process.env.HOME;
    process.env.HOME = base;
    try {
      const { workspace } = load({ root: '~/root' });
      const info = await workspace.create({
        projectId: 'app',
        project: aoProject({ path: '~/project' }),
        sessionId: 'app-2',
        branch: 'feat/app-2',
      });
      expect(info.path).toBe(path.join(base, 'root', 'app', 'app-2'));
      expect(await workspace.exists?.('~/root/app/app-2')).toBe(true);
      await workspace.destroy('~/root/app/app-2');
      expect(await workspace.exists?.(info.path)).toBe(false);
    } finally {
      process.env.HOME = home;
    }
  });

  it('reports refusals and throws them: a dirty tree, a taken session', async () => {
    const { workspace, refusals } = load({});
    const config = {
      projectId: 'app',
      project: aoProject(),
      sessionId: 'app-3',
      branch: 'feat/app-3',
    };
    const info = await workspace.create(config);
    await writeFile(path.join(info.path, 'unsaved.txt'), 'draft\n');

    const destroyed = workspace.destroy(info.path);
    await expect(destroyed).rejects.toThrow(/refusing to destroy .*unsaved\.txt/);
    await destroyed.catch((error: unknown) => {
      expect(WorkspaceError.isInstance(error, 'FORBIDDEN')).toBe(true);
      expect((error as WorkspaceError).details.reason).toBe('uncommitted-work');
    });
    expect((await stat(path.join(info.path, 'unsaved.txt'))).isFile()).toBe(true);

    await expect(workspace.create(config)).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    expect(refusals.map(({ operation, error }) => [operation, error.code])).toEqual([
      ['destroy', 'FORBIDDEN'],
      ['create', 'ALREADY_EXISTS'],
    ]);

    // forceDestroy is the explicit way through.
    await createAoWorkspace({ kind, root, forceDestroy: true }).destroy(info.path);
    expect(await workspace.exists?.(info.path)).toBe(false);
  });

  it('tells onWarning that the fetch failed and the tree starts from the local branch', async () => {
    await git(projectPath, 'remote', 'add', 'origin', path.join(base, 'gone.git'));
    const warnings: AoWarning[] = [];
    const { workspace } = load({ onWarning: (warning: AoWarning) => warnings.push(warning) });
    const config = {
      projectId: 'app',
      project: aoProject(),
      sessionId: 'app-6',
      branch: 'feat/app-6',
    };
    const info = await workspace.create(config);
    expect(info).toEqual({
      path: info.path,
      branch: 'feat/app-6',
      sessionId: 'app-6',
      projectId: 'app',
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ operation: 'create', path: info.path });
    expect(warnings[0]?.message).toMatch(/fetch/i);
    expect(await git(info.path, 'rev-parse', 'HEAD')).toBe(
      await git(projectPath, 'rev-parse', 'main'),
    );
    await workspace.destroy(info.path);
  });

  it('warns of a refusal by default', async () => {
    const registry = createPluginRegistry();
    registry.register(module, { root });
    const workspace = registry.get<Workspace>('workspace', kind) as Workspace;
    const config = {
      projectId: 'app',
      project: aoProject(),
      sessionId: 'app-5',
      branch: 'feat/app-5',
    };
    const info = await workspace.create(config);
    const warned = new Promise<Error>((resolve) => process.once('warning', resolve));
    await expect(workspace.create(config)).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    const warning = await warned;
    expect(warning.name).toBe('AgentWorkspaceRefusal');
    expect(warning.message).toContain('ao workspace create refused: sessionId "app-5" is in use');
    await workspace.destroy(info.path);
  });

  it('fails a post-create command with its output and removes the tree', async () => {
    const { workspace, refusals } = load({});
    const project = aoProject({ postCreate: ['echo broken-step >&2; exit 3'] });
    const info = await workspace.create({
      projectId: 'app',
      project,
      sessionId: 'app-4',
      branch: 'feat/app-4',
    });
    await expect(workspace.postCreate?.(info, project)).rejects.toMatchObject({
      code: 'PROVISIONING_ERROR',
      message: expect.stringContaining('broken-step'),
    });
    expect(await workspace.exists?.(info.path)).toBe(false);
    expect(refusals).toEqual([]);
  });
});

describe('plugin loading and config', () => {
  it("replaces ao-core's built-in workspace plugins through loadBuiltins", async () => {
    const registry = createPluginRegistry();
    const modules: Record<string, unknown> = {
      '@composio/ao-plugin-workspace-worktree': await import('./worktree.js'),
      '@composio/ao-plugin-workspace-clone': await import('./clone.js'),
    };
    await registry.loadBuiltins(undefined, async (pkg) => {
      const mod = modules[pkg];
      if (!mod) throw new Error(`not installed: ${pkg}`);
      return mod;
    });
    expect(registry.list('workspace').map((manifest) => manifest.name)).toEqual([
      'worktree',
      'clone',
    ]);
    expect(registry.get<Workspace>('workspace', 'clone')?.name).toBe('clone');
  });

  it('rejects a bad plugin config with INVALID_CONFIG naming the field', () => {
    const registry = createPluginRegistry();
    for (const [config, field] of [
      [{ root: 5 }, 'root'],
      [{ reapOnStart: 'yes' }, 'reapOnStart'],
      [{ postCreateTimeoutMs: -1 }, 'postCreateTimeoutMs'],
      [{ worktreeDir: '/tmp/x' }, 'worktreeDir'],
    ] as const) {
      let thrown: unknown;
      try {
        registry.register(worktree, config);
      } catch (error) {
        thrown = error;
      }
      expect(WorkspaceError.isInstance(thrown, 'INVALID_CONFIG')).toBe(true);
      expect((thrown as WorkspaceError).details.fields).toEqual([field]);
    }
  });

  it('leaves the trees of a dead owner alone unless reapOnStart is set', async () => {
    // A child process makes a clean tree and exits: its owner is gone.
    const script = `
      import { WorktreeProvisioner } from '@agent-workspace/git-workspaces';
      const p = new WorktreeProvisioner({ root: process.argv[1], reapOnStart: false });
      await p.create({ projectId: 'app', sessionId: 'gone', branch: 'feat/gone',
        project: { path: process.argv[2], defaultBranch: 'main' } });`;
    await execFileAsync(
      process.execPath,
      ['--input-type=module', '-e', script, root, projectPath],
      {
        cwd: path.resolve(import.meta.dirname, '..'),
      },
    );
    const tree = path.join(root, 'app', 'gone');

    const registry = createPluginRegistry();
    registry.register(worktree, { root });
    expect((await registry.get<Workspace>('workspace', 'worktree')?.list('app'))?.length).toBe(1);

    registry.register(worktree, { root, reapOnStart: true });
    expect(await registry.get<Workspace>('workspace', 'worktree')?.list('app')).toEqual([]);
    expect(await stat(tree).catch(() => undefined)).toBeUndefined();
  });
});
