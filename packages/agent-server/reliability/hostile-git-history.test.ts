import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  GIT_CHANGES_TRUNCATED_HEADER,
  GIT_COMMIT_CHANGES_TRUNCATION,
  gitCommitChangesPath,
  MAX_GIT_COMMIT_CHANGES,
  MAX_GIT_COMMIT_SUBJECT_CHARS,
  MAX_GIT_COMMITS_LIMIT,
} from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Figures } from './support/figures.js';
import { attempt, describeOutcome } from './support/outcome.js';
import { AUTH, createScratch, type Scratch, ServerProcess } from './support/server-process.js';

/** Commits of the long history: more than `MAX_GIT_COMMITS_LIMIT`. */
const HISTORY = MAX_GIT_COMMITS_LIMIT + 50;

/** Files of the wide commit: more than `MAX_GIT_COMMIT_CHANGES`. */
const WIDE = MAX_GIT_COMMIT_CHANGES + 50;

/**
 * A fast-import stream: a root commit adding {@link WIDE} files, {@link HISTORY} small commits,
 * then one whose subject is 1 MiB long.
 */
function history(): string {
  const lines: string[] = [];
  let time = 1_700_000_000;
  const commit = (message: string, body: string[]) => {
    time += 60;
    const data = Buffer.byteLength(message);
    lines.push(
      'commit refs/heads/main',
      `committer R <r@r> ${time} +0000`,
      `data ${data}`,
      message,
    );
    lines.push(...body, '');
  };
  lines.push('blob', 'mark :1', 'data 2', 'x', '');
  const files = Array.from({ length: WIDE }, (_, index) => `M 100644 :1 wide/f${index}.txt`);
  commit('wide', ['M 100644 :1 a.txt', ...files]);
  for (let index = 0; index < HISTORY; index += 1) {
    commit(`commit ${index}`, [
      `M 100644 inline a.txt`,
      `data ${String(index).length}`,
      String(index),
    ]);
  }
  commit('s'.repeat(1024 * 1024), []);
  return `${lines.join('\n')}\n`;
}

describe('hostile calls of the git history routes (GET /api/git/commits, /commits/{sha}/changes, /diff?commit)', () => {
  let scratch: Scratch;
  let server: ServerProcess;
  let repo: string;
  let marker: string;
  const figures = new Figures('hostile git history calls (confined)');

  /** Sends one hostile request and counts it: `expected` statuses are rejections, else an escape. */
  async function hostile(target: string, expected: number[]): Promise<string | undefined> {
    figures.tried += 1;
    const outcome = await attempt(`${server.url}${target}`, { headers: AUTH });
    const status = outcome.kind === 'answer' ? outcome.answer.status : undefined;
    if (status !== undefined && expected.includes(status)) {
      figures.rejected += 1;
      return undefined;
    }
    figures.escapes += 1;
    return `${target}: ${describeOutcome(outcome)}`;
  }

  beforeAll(async () => {
    scratch = await createScratch('git-history');
    repo = path.join(scratch.workingDir, 'repo');
    mkdirSync(repo);
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
    execFileSync('git', ['fast-import', '--quiet'], { cwd: repo, input: history() });
    execFileSync('git', ['checkout', '-q', 'main'], { cwd: repo });
    const outside = path.join(scratch.base, 'outside');
    mkdirSync(outside);
    execFileSync('git', ['init', '-q'], { cwd: outside });
    symlinkSync(outside, path.join(scratch.workingDir, 'escape'));
    marker = path.join(scratch.base, 'marker');
    writeFileSync(marker, 'still here\n');
    server = await ServerProcess.start({
      workingDir: scratch.workingDir,
      runtimeDir: scratch.runtimeDir,
      flags: ['--confine-to-working-dir'],
    });
  });
  afterAll(async () => {
    figures.observeRss(server?.peakRss ?? 0);
    figures.note = `${HISTORY + 2} commits, one of ${WIDE} files, one with a 1 MiB subject`;
    figures.save();
    await server?.stop();
    await scratch?.remove();
  });

  it('refuses refs and commits that git could read as options or several revisions', async () => {
    const pwned = path.join(scratch.base, 'pwned');
    const tmpBefore = existsSync('/tmp/x');
    const refs = [
      '-o',
      `--output=${pwned}`,
      '--output=/tmp/x',
      `HEAD;rm ${marker}`,
      `$(touch ${pwned})`,
      `\`touch ${pwned}\``,
      'HEAD..HEAD~1',
      'HEAD\n--output=/tmp/x',
      'r'.repeat(10_000),
    ];
    const violations: (string | undefined)[] = [];
    for (const ref of refs) {
      for (const route of ['changes', 'diff']) {
        const query = new URLSearchParams({ path: route === 'diff' ? 'repo/a.txt' : 'repo', ref });
        violations.push(await hostile(`/api/git/${route}?${query}`, [400]));
      }
    }
    const shas = ['-o', '--output=x', 'HEAD', 'HEAD;rm', 'main', 'g1234', 'abc', 'a'.repeat(65)];
    for (const sha of shas) {
      const query = new URLSearchParams({ path: 'repo/a.txt', commit: sha });
      violations.push(await hostile(`/api/git/diff?${query}`, [422]));
      violations.push(await hostile(`${gitCommitChangesPath(sha)}?path=repo`, [422]));
    }
    // Hex, well-formed, naming no commit.
    violations.push(await hostile(`${gitCommitChangesPath('deadbeef')}?path=repo`, [400]));
    expect(violations.filter(Boolean)).toEqual([]);
    expect(existsSync(pwned)).toBe(false);
    expect(existsSync('/tmp/x')).toBe(tmpBefore);
    expect(existsSync(marker)).toBe(true);
  });

  it('answers 422 naming limit for limits outside 1..200', async () => {
    for (const limit of ['0', '-1', '201', '1000000000000', '1e309', 'NaN', 'Infinity', '', 'x']) {
      figures.tried += 1;
      const outcome = await attempt(
        `${server.url}/api/git/commits?${new URLSearchParams({ path: 'repo', limit })}`,
        { headers: AUTH },
      );
      const answer = outcome.kind === 'answer' ? outcome.answer : undefined;
      const loc = (answer?.json as { detail?: { loc?: unknown }[] } | undefined)?.detail?.[0]?.loc;
      if (answer?.status === 422 && JSON.stringify(loc) === '["query","limit"]') {
        figures.rejected += 1;
      } else {
        figures.escapes += 1;
        expect.fail(`limit ${limit}: ${describeOutcome(outcome)}`);
      }
    }
  });

  it('refuses paths leading outside the working directory', async () => {
    const violations: (string | undefined)[] = [];
    for (const target of ['/etc', '..', '../..', 'escape', path.join(scratch.base, 'outside')]) {
      violations.push(
        await hostile(`/api/git/commits?${new URLSearchParams({ path: target })}`, [403]),
      );
      violations.push(
        await hostile(
          `${gitCommitChangesPath('abcd')}?${new URLSearchParams({ path: target })}`,
          [403],
        ),
      );
      const file = new URLSearchParams({ path: `${target}/a.txt`, commit: 'abcd' });
      violations.push(await hostile(`/api/git/diff?${file}`, [403]));
    }
    expect(violations.filter(Boolean)).toEqual([]);
  });

  it('bounds what it answers: 200 commits, cut subjects, MAX_GIT_COMMIT_CHANGES changes', async () => {
    const page = await attempt(
      `${server.url}/api/git/commits?${new URLSearchParams({ path: 'repo', limit: '200' })}`,
      { headers: AUTH },
    );
    expect(page.kind === 'answer' && page.answer.status).toBe(200);
    const body = (page.kind === 'answer' ? page.answer.json : undefined) as {
      commits: { sha: string; subject: string }[];
      has_more: boolean;
    };
    expect(body.commits).toHaveLength(MAX_GIT_COMMITS_LIMIT);
    expect(body.has_more).toBe(true);
    expect(body.commits[0]?.subject).toBe(`${'s'.repeat(MAX_GIT_COMMIT_SUBJECT_CHARS)}…`);

    const root = execFileSync('git', ['rev-list', '--max-parents=0', 'HEAD'], { cwd: repo })
      .toString()
      .trim();
    const wide = await attempt(`${server.url}${gitCommitChangesPath(root)}?path=repo`, {
      headers: AUTH,
    });
    expect(wide.kind === 'answer' && wide.answer.status).toBe(200);
    if (wide.kind !== 'answer') return;
    expect(wide.answer.headers[GIT_CHANGES_TRUNCATED_HEADER]).toBe(GIT_COMMIT_CHANGES_TRUNCATION);
    expect(wide.answer.json).toHaveLength(MAX_GIT_COMMIT_CHANGES);
    expect((await attempt(`${server.url}/health`)).kind).toBe('answer');
  });
});
