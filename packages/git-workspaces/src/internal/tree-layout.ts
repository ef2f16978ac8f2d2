import { homedir } from 'node:os';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';

/** The managed root when none is given: `~/.agent-workspace/git-workspaces`. */
export function defaultGitWorkspacesRoot(): string {
  return path.join(homedir(), '.agent-workspace', 'git-workspaces');
}

/** Directory of one project's trees: `<root>/<projectId>`. */
export function projectDirectory(root: string, projectId: string): string {
  return path.join(root, projectId);
}

/** Path of a managed tree: `<root>/<projectId>/<sessionId>`. */
export function treePath(root: string, projectId: string, sessionId: string): string {
  return path.join(root, projectId, sessionId);
}

/** Directory of one project's owner records: `<root>/<projectId>/.owners`. */
export function ownersDirectory(root: string, projectId: string): string {
  return path.join(root, projectId, '.owners');
}

/** Path of a tree's owner record: `<root>/<projectId>/.owners/<sessionId>.json`. */
export function ownerRecordPath(root: string, projectId: string, sessionId: string): string {
  return path.join(ownersDirectory(root, projectId), `${sessionId}.json`);
}

/**
 * Splits a managed tree's path into its project and session ids. Rejects with `FORBIDDEN`
 * (field `path`) when `target` is not exactly `<root>/<projectId>/<sessionId>`: nothing outside
 * the managed root is ever destroyed.
 */
export function parseTreePath(
  root: string,
  target: string,
): { projectId: string; sessionId: string; path: string } {
  const resolved = path.resolve(target);
  const relative = path.relative(path.resolve(root), resolved);
  const parts = relative.split(path.sep);
  const [projectId, sessionId] = parts;
  if (
    parts.length !== 2 ||
    projectId === undefined ||
    sessionId === undefined ||
    !SAFE_SEGMENT.test(projectId) ||
    !SAFE_SEGMENT.test(sessionId)
  ) {
    throw new WorkspaceError({
      code: 'FORBIDDEN',
      message: `path "${target}" is not a managed tree (<root>/<projectId>/<sessionId>) under ${root}`,
      details: { field: 'path', path: target, root },
    });
  }
  return { projectId, sessionId, path: resolved };
}

/**
 * A harmless path segment: letters, digits, `.`, `_` and `-`, at most 100 characters, starting
 * with a letter or digit (so no `/`, `.`, `..`, hidden or option-like names).
 */
export const SAFE_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
