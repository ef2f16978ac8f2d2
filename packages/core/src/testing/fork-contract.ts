import { describe, expect, it } from 'vitest';
import type { Workspace } from '../workspace/workspace.js';
import { type WorkspaceFork, workspaceForkOf } from '../workspace/workspace-fork.js';
import type { ContractContext } from './contract-context.js';
import { runGitScript } from './git-script.js';
import { expectRejection } from './rejection-of.js';

const TEST_TIMEOUT_MS = 240_000;

/** Everything a fork must carry of a repository: history, index, stash, files, links, modes. */
const DESCRIBE_REPOSITORY = [
  'g log --format="%H %s"',
  'g status --porcelain=v1 --untracked-files=all',
  'g stash list --format="%gd %s"',
  'g diff --cached',
  'g diff',
  'cat tracked.txt staged.txt untracked.txt',
  'readlink nested/link',
  'stat -c "%a %n" run.sh',
].join('\n');

/**
 * Fork section of the workspace contract, for a workspace that declares the `fork` capability
 * (`workspaceForkOf`): the fork sees the files and the git state of the original (commits, the
 * index, the stash, uncommitted and untracked changes, links, modes); a write in either is not
 * seen by the other; each closes on its own. A workspace that does not declare it must not be
 * reachable through `workspaceForkOf`. `disposeFork` (see `WorkspaceContractOptions`) removes
 * what a closed fork leaves.
 */
export function describeForkContract(context: ContractContext): void {
  /** The workspace's fork, or `undefined` after checking it really declares none. */
  const forkOrUndeclared = (workspace: Workspace): WorkspaceFork | undefined => {
    const fork = workspaceForkOf(workspace);
    if (fork === undefined) expect(workspace.capabilities?.fork ?? false).toBe(false);
    return fork;
  };

  /** Runs a git script (see `runGitScript`) in `cwd` of `workspace`; its stdout. */
  const run = (workspace: Workspace, cwd: string, script: string): Promise<string> =>
    runGitScript({ ...context, workspace: () => workspace }, cwd, script);

  /** Forks `workspace`, runs `use` on the fork, then closes and disposes of it. */
  const withFork = async (
    fork: WorkspaceFork,
    use: (forked: Workspace) => Promise<void>,
  ): Promise<void> => {
    const forked = await fork.fork();
    try {
      await use(forked);
    } finally {
      await forked.close();
      await context.disposeFork?.(forked);
    }
  };

  /** `dir` of the original as seen in `forked` (the same place under its working directory). */
  const inFork = (original: Workspace, forked: Workspace, dir: string): string =>
    `${forked.workingDir}${dir.slice(original.workingDir.length)}`;

  describe('fork', () => {
    it(
      'the fork has the files and git state of the original',
      async () => {
        const workspace = context.workspace();
        const fork = forkOrUndeclared(workspace);
        if (fork === undefined) return;
        const dir = await context.scratchDir('fork');
        await run(
          workspace,
          dir,
          [
            'g init -q',
            'echo one > tracked.txt && printf "#!/bin/sh\\n" > run.sh && chmod 755 run.sh',
            'mkdir nested && ln -s ../tracked.txt nested/link',
            'g add -A && g commit -qm first',
            'echo stashed >> tracked.txt && g stash -q',
            'echo two > tracked.txt && g commit -qam second',
            'echo staged > staged.txt && g add staged.txt',
            'echo uncommitted >> tracked.txt && echo untracked > untracked.txt',
          ].join(' && '),
        );
        const expected = await run(workspace, dir, DESCRIBE_REPOSITORY);
        expect(expected).toContain('stash@{0}');
        await withFork(fork, async (forked) => {
          expect(await run(forked, inFork(workspace, forked, dir), DESCRIBE_REPOSITORY)).toBe(
            expected,
          );
        });
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'a write in the fork is not seen by the original, nor one in the original by the fork',
      async () => {
        const workspace = context.workspace();
        const fork = forkOrUndeclared(workspace);
        if (fork === undefined) return;
        const dir = await context.scratchDir('fork-apart');
        await run(workspace, dir, 'echo shared > shared.txt');
        await withFork(fork, async (forked) => {
          const there = inFork(workspace, forked, dir);
          await run(forked, there, 'echo fork > shared.txt && echo fork > fork-only.txt');
          await run(workspace, dir, 'echo original > original-only.txt');
          expect(await run(workspace, dir, 'cat shared.txt; ls')).toBe(
            'shared\noriginal-only.txt\nshared.txt\n',
          );
          expect(await run(forked, there, 'cat shared.txt; ls')).toBe(
            'fork\nfork-only.txt\nshared.txt\n',
          );
        });
        expect(await run(workspace, dir, 'cat shared.txt')).toBe('shared\n');
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'the fork and the original close independently',
      async () => {
        const original = await context.makeWorkspace();
        let forked: Workspace | undefined;
        try {
          const fork = forkOrUndeclared(original);
          if (fork === undefined) return;
          await run(original, original.workingDir, 'echo kept > kept.txt');
          forked = await fork.fork();
          await original.close();
          expect(await run(forked, forked.workingDir, 'cat kept.txt')).toBe('kept\n');
          await forked.close();
          await expectRejection(forked.executeCommand('true'), 'WORKSPACE_CLOSED');
          await forked.close();
        } finally {
          await original.close();
          if (forked !== undefined) {
            await forked.close();
            await context.disposeFork?.(forked);
          }
        }
      },
      TEST_TIMEOUT_MS,
    );
  });
}
