import path from 'node:path';
import type { GitChange } from '@agent-workspace/protocol';
import { describe, expect, it } from 'vitest';
import type { ContractContext } from './contract-context.js';
import { describeGitHistoryContract } from './git-history-contract.js';
import { runGitScript } from './git-script.js';
import { expectRejection } from './rejection-of.js';

const TEST_TIMEOUT_MS = 30_000;

// File names git and naive parsers get wrong; written with bash ANSI-C quoting.
const trickyNames: ReadonlyArray<{ name: string; shell: string }> = [
  { name: 'naïve file.txt', shell: "'naïve file.txt'" },
  { name: 'tab\there.txt', shell: "$'tab\\there.txt'" },
  { name: 'quote"d.txt', shell: `'quote"d.txt'` },
  { name: "it's.txt", shell: "$'it\\'s.txt'" },
  { name: 'new\nline.txt', shell: "$'new\\nline.txt'" },
];

/** Sorts changes the way the contract requires: by the UTF-8 bytes of their path. */
function sorted(changes: GitChange[]): GitChange[] {
  return [...changes].sort((a, b) =>
    Buffer.compare(Buffer.from(a.path, 'utf8'), Buffer.from(b.path, 'utf8')),
  );
}

/**
 * Git section of the workspace contract: `gitChanges` and `gitDiff` on real repositories built
 * inside the workspace with `executeCommand` (so the workspace needs `git` and `bash`, and its
 * `workingDir` must not lie inside a git repository). Covers a plain directory, an unborn
 * branch, every change status (renames as `MOVED`), hostile file names, nested repositories,
 * a base ref, the report of a search cut short by its depth bound (core's default, 6 levels),
 * exact diff contents and relative paths resolved against `workingDir`; then, for a workspace
 * that declares `gitHistory`, commit history (see `describeGitHistoryContract`).
 */
export function describeGitContract(context: ContractContext): void {
  const sh = (cwd: string, script: string): Promise<string> => runGitScript(context, cwd, script);

  describe('git', () => {
    it(
      'lists nothing for a directory outside any repository or a missing one',
      async () => {
        const dir = await context.scratchDir('git-plain');
        await sh(dir, 'mkdir sub && printf x > sub/file.txt && printf y > top.txt');
        const probe = await context
          .workspace()
          .executeCommand('git rev-parse --is-inside-work-tree', { cwd: dir });
        expect(probe.exitCode, 'the contract needs workingDir outside any repository').not.toBe(0);
        expect(await context.workspace().gitChanges(dir)).toEqual([]);
        expect(await context.workspace().gitChanges(`${dir}/does-not-exist`)).toEqual([]);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'reports every file as ADDED on an unborn branch',
      async () => {
        const dir = await context.scratchDir('git-unborn');
        await sh(
          dir,
          'g init -q . && mkdir -p src && printf a > a.txt && printf b > src/b.txt && g add a.txt',
        );
        expect(await context.workspace().gitChanges(dir)).toEqual([
          { status: 'ADDED', path: 'a.txt' },
          { status: 'ADDED', path: 'src/b.txt' },
        ]);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'reports UPDATED, DELETED, MOVED and ADDED paths sorted, without ignored files',
      async () => {
        const dir = await context.scratchDir('git-statuses');
        await sh(
          dir,
          [
            'g init -q .',
            "printf '*.log\\n' > .gitignore",
            "printf 'before\\n' > modified.txt",
            "printf 'bye\\n' > deleted.txt",
            'mkdir old',
            "printf 'a line long enough to be detected as a rename\\n' > old/moved.txt",
            'g add -A && g commit -qm base',
            "printf 'after\\n' > modified.txt",
            'rm deleted.txt',
            'g mv old/moved.txt renamed.txt',
            "printf 'new\\n' > added.txt",
            "printf 'noise\\n' > debug.log",
          ].join('\n'),
        );
        expect(await context.workspace().gitChanges(dir)).toEqual([
          { status: 'ADDED', path: 'added.txt' },
          { status: 'DELETED', path: 'deleted.txt' },
          { status: 'UPDATED', path: 'modified.txt' },
          { status: 'MOVED', path: 'renamed.txt' },
        ]);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'handles spaces, tabs, quotes, newlines and non-ASCII in paths',
      async () => {
        const dir = await context.scratchDir('git-names');
        const lines = ['g init -q .', 'mkdir tracked fresh'];
        for (const { shell } of trickyNames) lines.push(`printf 'v1\\n' > tracked/${shell}`);
        lines.push('g add -A && g commit -qm base');
        for (const { shell } of trickyNames) {
          lines.push(`printf 'v2\\n' > tracked/${shell}`, `printf 'new\\n' > fresh/${shell}`);
        }
        await sh(dir, lines.join('\n'));
        const workspace = context.workspace();
        expect(await workspace.gitChanges(dir)).toEqual(
          sorted([
            ...trickyNames.map(({ name }) => ({ status: 'UPDATED', path: `tracked/${name}` })),
            ...trickyNames.map(({ name }) => ({ status: 'ADDED', path: `fresh/${name}` })),
          ] as GitChange[]),
        );
        for (const { name } of trickyNames) {
          expect(await workspace.gitDiff(`${dir}/tracked/${name}`)).toEqual({
            original: 'v1\n',
            modified: 'v2\n',
          });
        }
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'prefixes entries of nested repositories at any depth and keeps prefix-sharing siblings',
      async () => {
        const dir = await context.scratchDir('git-nested');
        await sh(
          dir,
          [
            'g init -q .',
            "printf 'root\\n' > root.txt",
            'g add -A && g commit -qm base',
            "printf 'changed\\n' > root.txt",
            'mkdir nested && (cd nested && g init -q . && printf "v1\\n" > inner.txt' +
              ' && g add -A && g commit -qm inner && printf "v2\\n" > inner.txt && printf x > new.txt)',
            'mkdir -p libs/deep && (cd libs/deep && g init -q . && printf d > deep.txt)',
            'mkdir nested2 && printf s > nested2/sibling.txt',
            'printf s > nestedX.txt',
          ].join('\n'),
        );
        expect(await context.workspace().gitChanges(dir)).toEqual([
          { status: 'ADDED', path: 'libs/deep/deep.txt' },
          { status: 'UPDATED', path: 'nested/inner.txt' },
          { status: 'ADDED', path: 'nested/new.txt' },
          { status: 'ADDED', path: 'nested2/sibling.txt' },
          { status: 'ADDED', path: 'nestedX.txt' },
          { status: 'UPDATED', path: 'root.txt' },
        ]);
        expect(await context.workspace().gitDiff(`${dir}/nested/inner.txt`)).toEqual({
          original: 'v1\n',
          modified: 'v2\n',
        });
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'compares against options.ref; a ref that could be read as an option is INVALID_ARGUMENT',
      async () => {
        const dir = await context.scratchDir('git-ref');
        await sh(
          dir,
          [
            'g init -q .',
            "printf 'v1\\n' > a.txt && printf x > gone.txt && g add -A && g commit -qm one",
            "printf 'v2\\n' > a.txt && printf b > b.txt && g rm -q gone.txt",
            'g add -A && g commit -qm two',
          ].join('\n'),
        );
        const workspace = context.workspace();
        expect(await workspace.gitChanges(dir, { ref: 'HEAD~1' })).toEqual([
          { status: 'UPDATED', path: 'a.txt' },
          { status: 'ADDED', path: 'b.txt' },
          { status: 'DELETED', path: 'gone.txt' },
        ]);
        expect(await workspace.gitChanges(dir, { ref: 'HEAD' })).toEqual([]);
        for (const ref of ['--output=/tmp/x', '-p', '']) {
          const error = await expectRejection(
            workspace.gitChanges(dir, { ref }),
            'INVALID_ARGUMENT',
          );
          expect(error.details?.field, `ref ${JSON.stringify(ref)}`).toBe('ref');
        }
        await expectRejection(workspace.gitChanges(dir, { ref: 'no-such-branch' }), 'GIT_ERROR');
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'tells onTruncated when a nested repository lies deeper than the search reaches',
      async () => {
        const dir = await context.scratchDir('git-deep');
        await sh(
          dir,
          [
            'mkdir near && (cd near && g init -q . && printf n > n.txt)',
            'mkdir -p a/b/c/d/e/f/g/far && (cd a/b/c/d/e/f/g/far && g init -q . && printf f > f.txt)',
          ].join('\n'),
        );
        const workspace = context.workspace();
        const bounds: string[] = [];
        const onTruncated = (bound: string) => bounds.push(bound);
        expect(await workspace.gitChanges(dir, { onTruncated })).toEqual([
          { status: 'ADDED', path: 'near/n.txt' },
        ]);
        expect(bounds).toEqual(['depth']);
        expect(await workspace.gitChanges(`${dir}/a/b/c`, { onTruncated })).toEqual([
          { status: 'ADDED', path: 'd/e/f/g/far/f.txt' },
        ]);
        expect(bounds, 'a search that looked everywhere is not truncated').toEqual(['depth']);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'diffs modified, new and deleted files with exact contents',
      async () => {
        const dir = await context.scratchDir('git-diff');
        await sh(
          dir,
          [
            'g init -q .',
            "printf 'line 1\\nline 2\\n' > file.txt",
            "printf 'old\\n' > deleted.txt",
            'g add -A && g commit -qm base',
            "printf 'line 1\\nline two\\n\\n' > file.txt",
            "printf 'fresh' > new.txt",
            'rm deleted.txt',
          ].join('\n'),
        );
        const workspace = context.workspace();
        expect(await workspace.gitDiff(`${dir}/file.txt`)).toEqual({
          original: 'line 1\nline 2\n',
          modified: 'line 1\nline two\n\n',
        });
        expect(await workspace.gitDiff(`${dir}/new.txt`)).toEqual({
          original: '',
          modified: 'fresh',
        });
        expect(await workspace.gitDiff(`${dir}/deleted.txt`)).toEqual({
          original: 'old\n',
          modified: '',
        });
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'gives null contents for a file outside any repository',
      async () => {
        const dir = await context.scratchDir('git-diff-plain');
        await sh(dir, "printf 'plain\\n' > plain.txt");
        expect(await context.workspace().gitDiff(`${dir}/plain.txt`)).toEqual({
          modified: null,
          original: null,
        });
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'resolves relative paths against workingDir',
      async () => {
        const workspace = context.workspace();
        const dir = await context.scratchDir('git-relative');
        await sh(
          dir,
          "g init -q . && printf 'v1\\n' > a.txt && g add -A && g commit -qm base && printf 'v2\\n' > a.txt",
        );
        const relative = path.posix.relative(workspace.workingDir, dir);
        expect(relative.startsWith('..') || path.posix.isAbsolute(relative)).toBe(false);
        expect(await workspace.gitChanges(relative)).toEqual([
          { status: 'UPDATED', path: 'a.txt' },
        ]);
        expect(await workspace.gitDiff(`${relative}/a.txt`)).toEqual({
          original: 'v1\n',
          modified: 'v2\n',
        });
        expect(await workspace.gitDiff(`./${relative}/../${relative}/a.txt`)).toEqual({
          original: 'v1\n',
          modified: 'v2\n',
        });
      },
      TEST_TIMEOUT_MS,
    );

    describeGitHistoryContract(context);
  });
}
