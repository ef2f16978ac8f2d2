import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  linkSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { startSymlinkFlipper } from '@agent-workspace/core/testing';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Figures } from './support/figures.js';
import {
  type Answer,
  type CallOptions,
  call,
  downloadTarget,
  keepAliveCall,
  multipartBody,
  uploadTarget,
} from './support/http.js';
import { attempt, describeOutcome } from './support/outcome.js';
import { AUTH, createScratch, type Scratch, ServerProcess } from './support/server-process.js';

/** Tries per kind of request; at least 5000 in all. */
const QUOTAS = { download: 1800, upload: 1400, command: 700, diff: 550, changes: 550 };

/** Parallel clients per kind. */
const WIDTH = 3;

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=r', '-c', 'user.email=r@r', ...args], {
    cwd,
    stdio: 'pipe',
  });

/** What the hammering of one kind of request gave. */
interface Tally {
  tried: number;
  /** 403 `outside the working directory` (or another refusal). */
  refused: number;
  /** Answered from inside the working directory. */
  inside: number;
  escapes: number;
  /** Answers the contract does not allow (5xx, dropped connections, ...). */
  unexpected: string[];
}

describe('race-based escapes from --confine-to-working-dir', () => {
  let scratch: Scratch;
  let server: ServerProcess;
  let work: string;
  let outside: string;
  let outsideListing: string[];
  let agent: Agent;
  const marker = `SECRET-${randomBytes(8).toString('hex')}`;
  const figures = new Figures('race escapes (confined)');
  const sideDoors = new Figures('static side doors');

  beforeAll(async () => {
    scratch = await createScratch('race');
    work = scratch.workingDir;
    outside = path.join(scratch.base, 'outside');
    // Outside: a file and a repository whose every answer would carry the marker.
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'secret.txt'), `${marker}\n`);
    writeFileSync(path.join(outside, 'file'), `${marker} committed\n`);
    git(outside, 'init', '-q');
    git(outside, 'add', 'file');
    git(outside, 'commit', '-q', '-m', marker);
    writeFileSync(path.join(outside, 'file'), `${marker} modified\n`);
    writeFileSync(path.join(outside, `${marker}.txt`), 'untracked\n');
    outsideListing = readdirSync(outside).sort();
    // Inside: the same names, harmless.
    mkdirSync(path.join(work, 'inside'));
    writeFileSync(path.join(work, 'inside', 'secret.txt'), 'inside\n');
    writeFileSync(path.join(work, 'inside', 'file'), 'inside v1\n');
    git(work, 'init', '-q');
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'inside');
    writeFileSync(path.join(work, 'inside', 'file'), 'inside v2\n');
    symlinkSync(path.join(work, 'inside'), path.join(work, 'flip'));
    server = await ServerProcess.start({
      workingDir: work,
      runtimeDir: scratch.runtimeDir,
      flags: ['--confine-to-working-dir'],
    });
    agent = new Agent({ connections: WIDTH * 5 });
  });
  afterAll(async () => {
    figures.observeRss(server?.peakRss ?? 0);
    sideDoors.observeRss(server?.peakRss ?? 0);
    figures.save();
    sideDoors.save();
    await agent?.close();
    await server?.stop();
    await scratch?.remove();
  });

  const options = (extra?: CallOptions): CallOptions => keepAliveCall(agent, extra);

  /** Runs `quota` tries of one request with `WIDTH` clients; `judge` sorts each answer. */
  async function hammer(
    quota: number,
    send: () => Promise<ReturnType<typeof attempt> extends Promise<infer O> ? O : never>,
    judge: (answer: Answer) => 'inside' | 'refused' | 'escape' | 'unexpected',
  ): Promise<Tally> {
    const tally: Tally = { tried: 0, refused: 0, inside: 0, escapes: 0, unexpected: [] };
    await Promise.all(
      Array.from({ length: WIDTH }, async () => {
        while (tally.tried < quota) {
          tally.tried++;
          const outcome = await send();
          if (outcome.kind !== 'answer') {
            tally.unexpected.push(describeOutcome(outcome));
            continue;
          }
          const verdict = judge(outcome.answer);
          if (verdict === 'inside') tally.inside++;
          else if (verdict === 'refused') tally.refused++;
          else if (verdict === 'escape') tally.escapes++;
          else
            tally.unexpected.push(`${outcome.answer.status} ${outcome.answer.text.slice(0, 200)}`);
        }
      }),
    );
    return tally;
  }

  /** 403 for confinement; anything else that is no 200 is unexpected. */
  const refusedOr = (
    answer: Answer,
    inside: () => boolean,
  ): 'inside' | 'refused' | 'escape' | 'unexpected' => {
    if (answer.text.includes(marker)) return 'escape';
    if (answer.status === 403) return 'refused';
    if (answer.status === 200) return inside() ? 'inside' : 'unexpected';
    return 'unexpected';
  };

  it(`never reaches outside while a symlink in the path flips (${Object.values(QUOTAS).reduce((a, b) => a + b)} tries)`, async () => {
    const flipper = await startSymlinkFlipper(path.join(work, 'flip'), [
      path.join(work, 'inside'),
      outside,
    ]);
    const uploaded = path.join(outside, 'new.txt');
    let tallies: Record<keyof typeof QUOTAS, Tally>;
    let flips = 0;
    try {
      const results = await Promise.all([
        hammer(
          QUOTAS.download,
          () =>
            attempt(
              `${server.url}${downloadTarget(path.join(work, 'flip', 'secret.txt'))}`,
              options(),
            ),
          (answer) => refusedOr(answer, () => answer.text === 'inside\n'),
        ),
        hammer(
          QUOTAS.upload,
          () => {
            const form = multipartBody('uploaded\n');
            return attempt(`${server.url}${uploadTarget(path.join(work, 'flip', 'new.txt'))}`, {
              ...options({ headers: { 'content-type': form.contentType } }),
              method: 'POST',
              body: form.body,
            });
          },
          (answer) => {
            // Whatever the answer, nothing may have been written outside.
            if (statSync(uploaded, { throwIfNoEntry: false })) {
              rmSync(uploaded, { force: true });
              return 'escape';
            }
            return refusedOr(answer, () => true);
          },
        ),
        hammer(
          QUOTAS.command,
          () =>
            attempt(`${server.url}/api/bash/execute_bash_command`, {
              ...options({ headers: { 'content-type': 'application/json' } }),
              method: 'POST',
              body: JSON.stringify({ command: 'pwd; pwd -P', cwd: 'flip', timeout: 30 }),
            }),
          (answer) => {
            const stdout = String((answer.json as { stdout?: unknown } | undefined)?.stdout ?? '');
            if (stdout.includes(outside)) return 'escape';
            return refusedOr(answer, () => stdout.includes(path.join(work, 'inside')));
          },
        ),
        hammer(
          QUOTAS.diff,
          () => attempt(`${server.url}/api/git/diff?path=flip/file`, options()),
          (answer) => refusedOr(answer, () => answer.text.includes('inside v')),
        ),
        hammer(
          QUOTAS.changes,
          () => attempt(`${server.url}/api/git/changes?path=flip`, options()),
          (answer) => refusedOr(answer, () => Array.isArray(answer.json)),
        ),
      ]);
      tallies = {
        download: results[0],
        upload: results[1],
        command: results[2],
        diff: results[3],
        changes: results[4],
      };
    } finally {
      flips = await flipper.stop();
    }
    const all = Object.values(tallies);
    figures.tried += all.reduce((sum, tally) => sum + tally.tried, 0);
    figures.rejected += all.reduce((sum, tally) => sum + tally.refused, 0);
    figures.escapes += all.reduce((sum, tally) => sum + tally.escapes, 0);
    figures.note = `${flips} flips; ${Object.entries(tallies)
      .map(([kind, tally]) => `${kind} ${tally.inside}/${tally.refused}/${tally.escapes}`)
      .join(', ')} (inside/refused/escapes)`;

    expect(flips, 'the link hardly flipped').toBeGreaterThan(1000);
    expect(figures.tried).toBeGreaterThanOrEqual(5000);
    // Both sides of the race were seen, or the race proves nothing.
    expect(figures.rejected, 'no try was refused').toBeGreaterThan(0);
    expect(
      all.reduce((sum, tally) => sum + tally.inside, 0),
      'no try got through inside',
    ).toBeGreaterThan(0);
    expect(readdirSync(outside).sort(), 'what appeared outside').toEqual(outsideListing);
    expect(
      Object.fromEntries(Object.entries(tallies).map(([kind, tally]) => [kind, tally.escapes])),
    ).toEqual({ download: 0, upload: 0, command: 0, diff: 0, changes: 0 });
    const unexpected = Object.entries(tallies).flatMap(([kind, tally]) =>
      [...new Set(tally.unexpected)].map((text) => `${kind}: ${text}`),
    );
    expect(unexpected).toEqual([]);
    expect(server.exit).toBeUndefined();
  });

  it('shuts the static side doors: a .git file pointing out, a hard link, /dev/null, a directory', async () => {
    const check = (name: string, ok: boolean, seen: string) => {
      sideDoors.tried++;
      if (ok) sideDoors.rejected++;
      else sideDoors.escapes++;
      return ok ? [] : [`${name}: got ${seen}`];
    };
    const problems: string[] = [];
    // A `.git` file inside whose gitdir is the outside repository.
    const door = path.join(work, 'door');
    mkdirSync(door);
    writeFileSync(path.join(door, '.git'), `gitdir: ${path.join(outside, '.git')}\n`);
    writeFileSync(path.join(door, 'file'), 'door\n');
    for (const target of ['/api/git/changes?path=door', '/api/git/diff?path=door/file']) {
      const answer = await call(`${server.url}${target}`, { headers: AUTH });
      problems.push(
        ...check(
          `GET ${target}`,
          answer.status === 403 && !answer.text.includes(marker),
          `${answer.status} ${answer.text.slice(0, 200)}`,
        ),
      );
    }
    // A hard link inside to a file outside (same file system).
    linkSync(path.join(outside, 'secret.txt'), path.join(work, 'hard.txt'));
    const hard = await call(`${server.url}${downloadTarget(path.join(work, 'hard.txt'))}`, {
      headers: AUTH,
    });
    problems.push(
      ...check(
        'download of a hard link to outside',
        hard.status === 403 && !hard.text.includes(marker),
        `${hard.status} ${hard.text.slice(0, 200)}`,
      ),
    );
    // Plain ways out.
    for (const target of [
      path.join(outside, 'secret.txt'),
      path.join(work, '..', 'outside', 'secret.txt'),
    ]) {
      const answer = await call(`${server.url}${downloadTarget(target)}`, { headers: AUTH });
      problems.push(
        ...check(
          `download ${target}`,
          answer.status === 403,
          `${answer.status} ${answer.text.slice(0, 200)}`,
        ),
      );
    }
    // Uploading to a directory (trailing slash) is 400 Path is a directory.
    const form = multipartBody('x');
    const toDirectory = await call(
      `${server.url}${uploadTarget(`${path.join(work, 'inside')}/`)}`,
      {
        method: 'POST',
        headers: { ...AUTH, 'content-type': form.contentType },
        body: form.body,
      },
    );
    problems.push(
      ...check(
        'upload to <dir>/',
        toDirectory.status === 400 &&
          (toDirectory.json as { detail?: string }).detail === 'Path is a directory',
        `${toDirectory.status} ${toDirectory.text}`,
      ),
    );

    // On an unconfined server, /dev/null is refused and stays a device.
    const unconfined = await ServerProcess.start({
      workingDir: work,
      runtimeDir: scratch.runtimeDir,
    });
    try {
      const devNull = await call(`${unconfined.url}${uploadTarget('/dev/null')}`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': form.contentType },
        body: form.body,
      });
      problems.push(
        ...check(
          'unconfined upload to /dev/null',
          devNull.status === 400 && statSync('/dev/null').isCharacterDevice(),
          `${devNull.status} ${devNull.text}; /dev/null is a character device: ${statSync('/dev/null').isCharacterDevice()}`,
        ),
      );
      sideDoors.observeRss(unconfined.peakRss);
    } finally {
      await unconfined.stop();
    }
    expect(problems).toEqual([]);
  });
});
