import { WorkspaceError } from '@agent-workspace/core';
import { runGit } from './run-git.js';
import { shareInFlight } from './share-in-flight.js';

/** What a create needs to know of the project repository. */
export interface ProjectFacts {
  /** The project's `remote.origin.url`; `undefined` when it has no `origin`. */
  originUrl: string | undefined;
}

/**
 * Checks that `projectPath` is (inside) a non-bare git repository and reads its origin URL, in
 * one `git config --local` (parallel calls for one path share it).
 *
 * @throws WorkspaceError `INVALID_CONFIG` naming `project.path` when it is not.
 */
export async function inspectProject(
  projectPath: string,
  signal?: AbortSignal,
): Promise<ProjectFacts> {
  const result = await shareInFlight(
    `inspect-project\0${projectPath}`,
    () =>
      runGit(
        ['config', '--local', '--null', '--get-regexp', '^(core\\.bare|remote\\.origin\\.url)$'],
        { cwd: projectPath },
      ).catch(() => undefined),
    signal,
  );
  // 1: a repository without either key; anything else is no repository (or no directory).
  if (result === undefined || (result.exitCode !== 0 && result.exitCode !== 1)) {
    throw notAWorkTree(projectPath, result === undefined ? ' (no such directory)' : '');
  }
  const values = new Map<string, string>();
  for (const entry of result.stdout.split('\0')) {
    const newline = entry.indexOf('\n');
    if (newline > 0) values.set(entry.slice(0, newline), entry.slice(newline + 1));
  }
  if (values.get('core.bare') === 'true') throw notAWorkTree(projectPath, ' (a bare repository)');
  const originUrl = values.get('remote.origin.url');
  return { originUrl: originUrl === '' ? undefined : originUrl };
}

function notAWorkTree(projectPath: string, why: string): WorkspaceError {
  return new WorkspaceError({
    code: 'INVALID_CONFIG',
    message: `project.path ${projectPath} is not a git work tree${why}`,
    details: { fields: ['project.path'], field: 'project.path' },
  });
}
