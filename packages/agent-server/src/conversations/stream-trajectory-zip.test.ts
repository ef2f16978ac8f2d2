import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { MAX_TRAJECTORY_DEPTH, REDACTED_SECRET_VALUE } from '@agent-workspace/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readZip } from '../test-support/read-zip.js';
import { streamTrajectoryZip } from './stream-trajectory-zip.js';

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const openDescriptors = async () => (await readdir('/proc/self/fd')).length;

describe('streamTrajectoryZip', () => {
  let base: string;
  let dir: string;
  beforeEach(async () => {
    base = await mkdtemp(path.join(os.tmpdir(), 'trajectory-zip-'));
    dir = path.join(base, 'conversation');
    await mkdir(dir);
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  it('redacts every line of a large events file, dropping lines that are not JSON', async () => {
    const lines: string[] = [];
    for (let index = 0; index < 20_000; index++) {
      lines.push(
        JSON.stringify({ id: index, llm: { api_key: `sk-${index}`, pad: 'x'.repeat(500) } }),
      );
      if (index === 7) lines.push('{"torn": ');
    }
    await writeFile(path.join(dir, 'events.jsonl'), `${lines.join('\n')}\n`);
    const zip = await readZip(
      await collect(streamTrajectoryZip({ dir, rootName: 'abc', knownSecrets: [] })),
    );
    const out = zip.get('abc/events.jsonl')!.toString('utf8').split('\n').filter(Boolean);
    expect(out).toHaveLength(20_000);
    expect(JSON.parse(out[12_345]!)).toEqual({
      id: 12_345,
      llm: { api_key: REDACTED_SECRET_VALUE, pad: 'x'.repeat(500) },
    });
    expect(out.join('\n')).not.toMatch(/sk-\d/);
  });

  it('follows no link, skips FIFOs and stops at the depth limit', async () => {
    const outside = path.join(base, 'outside');
    await mkdir(outside);
    await writeFile(path.join(outside, 'secret.json'), '{"secret":"outside"}');
    await symlink(path.join(outside, 'secret.json'), path.join(dir, 'leak.json'));
    await symlink(outside, path.join(dir, 'leakdir'));
    execFileSync('mkfifo', [path.join(dir, 'pipe.jsonl')]);
    const deep = path.join(
      dir,
      ...Array.from({ length: MAX_TRAJECTORY_DEPTH + 2 }, (_, i) => `d${i}`),
    );
    await mkdir(deep, { recursive: true });
    await writeFile(path.join(deep, 'too-deep.json'), '{}');
    const zip = await readZip(
      await collect(streamTrajectoryZip({ dir, rootName: 'r', knownSecrets: [] })),
    );
    const names = [...zip.keys()];
    expect(names.some((name) => /leak|pipe|too-deep/.test(name))).toBe(false);
    expect(Buffer.concat([...zip.values()]).toString('utf8')).not.toContain('outside');
    const deepest = Math.max(...names.map((name) => name.replace(/\/$/, '').split('/').length - 1));
    expect(deepest).toBe(MAX_TRAJECTORY_DEPTH);
  });

  it('gives its descriptors back when aborted midway', async () => {
    for (let index = 0; index < 50; index++) {
      await writeFile(path.join(dir, `file-${index}.bin`), randomBytes(256 * 1024));
    }
    const before = await openDescriptors();
    const controller = new AbortController();
    const stream = streamTrajectoryZip({
      dir,
      rootName: 'r',
      knownSecrets: [],
      signal: controller.signal,
    });
    let received = 0;
    const failure = await (async () => {
      try {
        for await (const chunk of stream) {
          received += (chunk as Buffer).length;
          if (received > 1024 * 1024) controller.abort(new Error('client left'));
        }
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect((failure as Error | undefined)?.message).toBe('client left');
    expect(received).toBeLessThan(50 * 256 * 1024);
    await expect.poll(openDescriptors).toBeLessThanOrEqual(before);
  });

  it('throws ENOENT for a missing directory and ELOOP for a link to one', async () => {
    expect(() =>
      streamTrajectoryZip({ dir: path.join(base, 'missing'), rootName: 'r', knownSecrets: [] }),
    ).toThrow(/ENOENT/);
    await symlink(dir, path.join(base, 'link'));
    expect(() =>
      streamTrajectoryZip({ dir: path.join(base, 'link'), rootName: 'r', knownSecrets: [] }),
    ).toThrow(/ELOOP|ENOTDIR/);
  });
});
