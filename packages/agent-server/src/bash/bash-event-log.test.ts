import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BASH_EVENT_LOG_FILE, BashEventLog } from './bash-event-log.js';

function line(id: string): string {
  return JSON.stringify({
    event: {
      kind: 'BashCommand',
      id: id.repeat(32),
      timestamp: '2026-08-22T10:00:00.000001Z',
      command: 'true',
      cwd: null,
      timeout: 300,
    },
  });
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'bash-log-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('BashEventLog', () => {
  it('reads a missing log as empty and creates the state directory', async () => {
    const nested = path.join(dir, 'state', 'nested');
    expect(await BashEventLog.read(nested)).toEqual({ events: [], invalidLines: 0 });
    const log = new BashEventLog(nested, (error) => {
      throw error;
    });
    await log.open([], 0);
    await log.close();
    expect((await stat(path.join(nested, BASH_EVENT_LOG_FILE))).mode & 0o777).toBe(0o600);
  });

  it('appends in batches, compacts with rewrite and reads back what it wrote', async () => {
    const errors: unknown[] = [];
    const log = new BashEventLog(dir, (error) => errors.push(error));
    await log.open([line('a')], line('a').length + 1);
    log.append(line('b'));
    log.append(line('c'));
    await log.flush();
    const file = path.join(dir, BASH_EVENT_LOG_FILE);
    expect((await readFile(file, 'utf8')).split('\n')).toEqual([
      line('a'),
      line('b'),
      line('c'),
      '',
    ]);
    expect(log.fileBytes).toBe(3 * (line('a').length + 1));
    log.rewrite([line('c')], line('c').length + 1);
    log.append(line('d'));
    await log.close();
    expect(await readFile(file, 'utf8')).toBe(`${line('c')}\n${line('d')}\n`);
    const contents = await BashEventLog.read(dir);
    expect(contents.events.map((event) => event.event.id)).toEqual([
      'c'.repeat(32),
      'd'.repeat(32),
    ]);
    expect(errors).toEqual([]);
  });

  it('counts lines that are not valid events', async () => {
    await writeFile(
      path.join(dir, BASH_EVENT_LOG_FILE),
      `${line('a')}\nnot json\n{"event":{"kind":"BashCommand"}}\n\n${line('b')}`,
    );
    const contents = await BashEventLog.read(dir);
    expect(contents.invalidLines).toBe(2);
    expect(contents.events).toHaveLength(2);
  });

  it('reports write failures to onError and carries on', async () => {
    const errors: unknown[] = [];
    const log = new BashEventLog(dir, (error) => errors.push(error));
    await log.open([], 0);
    await rm(dir, { recursive: true, force: true });
    // The directory is gone: compaction cannot create its temporary file.
    log.rewrite([line('a')], 0);
    await log.flush();
    expect(errors).toHaveLength(1);
    expect((errors[0] as NodeJS.ErrnoException).code).toBe('ENOENT');
    log.append(line('b'));
    await log.close();
  });
});
