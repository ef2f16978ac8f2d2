import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalWorkspace, RemoteWorkspace, type Workspace } from '@agent-workspace/core';
import { DockerWorkspace, resolveAgentServerImage } from '@agent-workspace/docker';
import { WORKSPACE_IDENTITY_CAPABILITY } from '@agent-workspace/protocol';

/** Options of {@link openDemoWorkspace}. */
export interface OpenDemoWorkspaceOptions {
  kind: 'local' | 'docker' | 'remote';
  /** The agent-server's URL and session key (remote). */
  host?: string | undefined;
  apiKey?: string | undefined;
  /** Local: the directory to work in. Remote: where to make the demo's directory. */
  workingDir?: string | undefined;
  /** `/etc/hosts` entries of the container (docker). */
  extraHosts?: string[] | undefined;
  /** Leave the directory the demo made. */
  keep?: boolean | undefined;
}

/** A workspace for the demo; disposing it removes the directory the demo made, then closes it. */
export interface DemoWorkspace extends AsyncDisposable {
  workspace: Workspace;
}

/**
 * A fresh, empty working directory in the workspace kind asked for: a new temporary directory
 * (local), the container's `/workspace` (docker), or a new `agent-demo-*` directory in the
 * server's working directory (remote; the one the server reports when `workingDir` is unset).
 */
export async function openDemoWorkspace(options: OpenDemoWorkspaceOptions): Promise<DemoWorkspace> {
  switch (options.kind) {
    case 'local': {
      if (options.workingDir) {
        return closing(new LocalWorkspace({ workingDir: options.workingDir }), async () => {});
      }
      const workingDir = await mkdtemp(path.join(tmpdir(), 'agent-demo-'));
      return closing(new LocalWorkspace({ workingDir }), async () => {
        if (!options.keep) await rm(workingDir, { recursive: true, force: true });
      });
    }
    case 'docker': {
      const image = await resolveAgentServerImage();
      const extraHosts = options.extraHosts ? { extraHosts: options.extraHosts } : {};
      return closing(await DockerWorkspace.create({ image, ...extraHosts }), async () => {});
    }
    case 'remote':
      return openRemote(options);
  }
}

async function openRemote(options: OpenDemoWorkspaceOptions): Promise<DemoWorkspace> {
  const connection = { host: options.host ?? '', apiKey: options.apiKey };
  const base = options.workingDir ?? (await serverWorkingDir(connection));
  const root = new RemoteWorkspace({ ...connection, workingDir: base });
  try {
    const name = `agent-demo-${randomBytes(4).toString('hex')}`;
    const made = await root.executeCommand(`mkdir -- '${name}'`);
    if (made.exitCode !== 0) {
      throw new Error(
        `cannot make ${name} in ${base} on ${connection.host}: ${made.stderr.trim()}`,
      );
    }
    const workspace = new RemoteWorkspace({
      ...connection,
      workingDir: path.posix.join(base, name),
    });
    return {
      workspace,
      [Symbol.asyncDispose]: async () => {
        try {
          await workspace.close();
          if (!options.keep) await root.executeCommand(`rm -rf -- '${name}'`);
        } finally {
          await root.close();
        }
      },
    };
  } catch (error) {
    await root.close();
    throw error;
  }
}

/** The working directory the agent-server reports (`GET /api/workspace/identity`). */
async function serverWorkingDir(connection: { host: string; apiKey?: string | undefined }) {
  await using probe = new RemoteWorkspace({ ...connection, workingDir: '/' });
  const { capabilities } = await probe.serverInfo();
  if (!capabilities.includes(WORKSPACE_IDENTITY_CAPABILITY)) {
    throw new Error(`${connection.host} does not report its working directory: pass --working-dir`);
  }
  return (await probe.identity()).executionRoot;
}

function closing(workspace: Workspace, cleanup: () => Promise<void>): DemoWorkspace {
  return {
    workspace,
    [Symbol.asyncDispose]: async () => {
      try {
        await workspace.close();
      } finally {
        await cleanup();
      }
    },
  };
}
