import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  GIT_CHANGES_TRUNCATED_HEADER,
  GIT_CHANGES_TRUNCATIONS,
  type GitChangesTruncation,
} from '@agent-workspace/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Figures } from './support/figures.js';
import { attempt, describeOutcome } from './support/outcome.js';
import { commandName, descendantsOf } from './support/processes.js';
import {
  AUTH,
  createScratch,
  type Scratch,
  ServerProcess,
  waitFor,
} from './support/server-process.js';

/** `--git-search-timeout-seconds` of the server that searches a hanging repository. */
const SEARCH_SECONDS = 3;

/**
 * Upper bound for "answered at all": well above the search bounds (5 s by default), well below
 * the 30 s a hanging git call would take without them.
 */
const ANSWERED_WITHIN_MS = 20_000;

/** A repository at `dir` with one untracked file. */
function repository(dir: string): void {
  mkdirSync(dir, { recursive: true });
  execFileSync('git', ['init', '-q'], { cwd: dir, stdio: 'ignore' });
  writeFileSync(path.join(dir, 'file.txt'), `${dir}\n`);
}

/** What a bounded `GET /api/git/changes` answered, or why it is a violation. */
interface BoundedAnswer {
  paths: string[];
  truncation: GitChangesTruncation | undefined;
  /** Set when the answer broke the contract: no answer, not 200, not an array, bad header. */
  violation?: string;
}

describe('wide nested-repository searches of GET /api/git/changes', () => {
  let scratch: Scratch;
  /** Default bounds. */
  let server: ServerProcess;
  /** 20 repositories, 500 directories. */
  let limited: ServerProcess;
  const figures = new Figures('wide git searches');

  /** Starts another server on the scratch working directory, with its own runtime directory. */
  function startServer(name: string, flags: string[]): Promise<ServerProcess> {
    const runtimeDir = path.join(scratch.base, `runtime-${name}`);
    mkdirSync(runtimeDir, { mode: 0o700 });
    return ServerProcess.start({ workingDir: scratch.workingDir, runtimeDir, flags });
  }

  /** Asks `server` for the changes under `target` and checks the shape of the answer. */
  async function changes(target: string, on = server): Promise<BoundedAnswer> {
    figures.tried += 1;
    const url = `${on.url}/api/git/changes?${new URLSearchParams({ path: target })}`;
    const outcome = await attempt(url, { headers: AUTH, timeoutMs: ANSWERED_WITHIN_MS });
    const answer = outcome.kind === 'answer' ? outcome.answer : undefined;
    const header = answer?.headers[GIT_CHANGES_TRUNCATED_HEADER];
    const truncation = GIT_CHANGES_TRUNCATIONS.find((bound) => bound === header);
    const body = answer?.json;
    let violation: string | undefined;
    if (answer?.status !== 200 || !Array.isArray(body)) violation = describeOutcome(outcome);
    else if (header !== undefined && truncation === undefined) violation = `header ${header}`;
    if (violation !== undefined) figures.escapes += 1;
    else if (truncation !== undefined) figures.rejected += 1;
    const paths = Array.isArray(body) ? body.map((change: { path: string }) => change.path) : [];
    return { paths, truncation, ...(violation !== undefined && { violation }) };
  }

  beforeAll(async () => {
    scratch = await createScratch('wide-git');
    server = await ServerProcess.start({
      workingDir: scratch.workingDir,
      runtimeDir: scratch.runtimeDir,
    });
    limited = await startServer('limited', [
      '--git-search-max-repositories',
      '20',
      '--git-search-max-directories',
      '500',
    ]);
  });
  afterAll(async () => {
    for (const each of [server, limited]) figures.observeRss(each?.peakRss ?? 0);
    figures.note = `default bounds for / (depth 6, 100 repositories, 20 000 directories, 5 s); 20 repositories, 500 directories, ${SEARCH_SECONDS} s by flags`;
    figures.save();
    await Promise.all([server?.stop(), limited?.stop()]);
    await scratch?.remove();
  });

  it('answers path=/ on an unconfined server within the default bounds, four at once', async () => {
    const answers = await Promise.all([1, 2, 3, 4].map(() => changes('/')));
    for (const answer of answers) {
      expect(answer.violation).toBeUndefined();
      expect(answer.truncation).toBeDefined();
    }
    expect((await attempt(`${server.url}/health`)).kind).toBe('answer');
  });

  it('scans at most --git-search-max-repositories of a wide tree', async () => {
    const wide = path.join(scratch.workingDir, 'wide');
    for (let index = 0; index < 60; index += 1) {
      repository(path.join(wide, `r${String(index).padStart(2, '0')}`));
    }
    const answer = await changes(wide, limited);
    expect(answer).toMatchObject({ truncation: 'repositories' });
    expect(answer.paths).toHaveLength(20);
    expect(answer.paths[0]).toBe('r00/file.txt');
  });

  it('reads at most --git-search-max-directories of a flat tree', async () => {
    const flat = path.join(scratch.workingDir, 'flat');
    for (let index = 0; index < 2_000; index += 1) {
      mkdirSync(path.join(flat, `d${String(index).padStart(4, '0')}`), { recursive: true });
    }
    repository(path.join(flat, 'zz-repository'));
    expect(await changes(flat, limited)).toEqual({ paths: [], truncation: 'directories' });
  });

  it('does not go below depth 6 of a deep chain', async () => {
    const deep = path.join(scratch.workingDir, 'deep');
    const chain = Array.from({ length: 40 }, (_, index) => `level${index}`);
    repository(path.join(deep, ...chain));
    repository(path.join(deep, 'a/b/c/d/e/near'));
    expect(await changes(deep)).toEqual({
      paths: ['a/b/c/d/e/near/file.txt'],
      truncation: 'depth',
    });
  });

  it('stops hanging nested scans at --git-search-timeout-seconds and ends their git', async () => {
    const hanging = path.join(scratch.workingDir, 'hanging');
    // git blocks opening an index that is a FIFO nobody writes (for its 30 s bound). `c` is
    // scanned beside `b`; the next three hang in every lane, so `g` is never reached.
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) {
      repository(path.join(hanging, name));
      if (['b', 'd', 'e', 'f'].includes(name)) {
        execFileSync('mkfifo', [path.join(hanging, name, '.git/index')]);
      }
    }
    const bounded = await startServer('bounded', [
      '--git-search-timeout-seconds',
      String(SEARCH_SECONDS),
    ]);
    try {
      expect(await changes(hanging, bounded)).toEqual({
        paths: ['a/file.txt', 'c/file.txt'],
        truncation: 'time',
      });
      const gitLeft = () => descendantsOf(bounded.pid).some((pid) => commandName(pid) === 'git');
      expect(await waitFor(() => !gitLeft(), 10_000)).toBe(true);
      expect((await changes(path.join(hanging, 'a'), bounded)).paths).toEqual(['file.txt']);
    } finally {
      figures.observeRss(bounded.peakRss);
      await bounded.stop();
    }
  });
});
