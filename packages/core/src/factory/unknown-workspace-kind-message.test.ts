import { describe, expect, it } from 'vitest';
import {
  SHIPPED_WORKSPACE_KINDS,
  unknownWorkspaceKindMessage,
} from './unknown-workspace-kind-message.js';

describe('unknownWorkspaceKindMessage', () => {
  it.each([
    ['docker', '@agent-workspace/docker', 'registerDockerWorkspaceType'],
    ['remote-api', '@agent-workspace/remote-api', 'registerRemoteApiWorkspaceType'],
    ['worktree', '@agent-workspace/git-workspaces', 'registerGitWorkspaceTypes'],
    ['clone', '@agent-workspace/git-workspaces', 'registerGitWorkspaceTypes'],
  ])('names the package that registers %s and its register function', (kind, pkg, register) => {
    const message = unknownWorkspaceKindMessage({ kind, registered: ['local', 'remote'] });
    expect(message).toContain(`"${kind}" is registered by ${pkg}: import '${pkg}' first`);
    expect(message).toContain(`${register}()`);
    expect(message).toContain('registered kinds: local, remote');
    expect(message).not.toContain('registerWorkspaceType()');
  });

  it('lists every shipped kind not yet registered for a kind nobody ships', () => {
    const message = unknownWorkspaceKindMessage({
      kind: 'nope',
      registered: ['local', 'remote', 'docker'],
    });
    expect(message).toContain('no workspace type of kind "nope" is registered');
    expect(message).toContain(
      `kinds this project ships: "remote-api" (import '@agent-workspace/remote-api'), "worktree" (import '@agent-workspace/git-workspaces'), "clone" (import '@agent-workspace/git-workspaces')`,
    );
    expect(message).not.toContain('"docker" (import');
    expect(message).toContain('registerWorkspaceType() before createWorkspace()');
  });

  it('leaves the list out when every shipped kind is registered', () => {
    const registered = ['local', 'remote', ...SHIPPED_WORKSPACE_KINDS.map((row) => row.kind)];
    const message = unknownWorkspaceKindMessage({ kind: 'nope', registered });
    expect(message).not.toContain('kinds this project ships');
    expect(message).toContain(`registered kinds: ${registered.join(', ')}`);
  });
});
