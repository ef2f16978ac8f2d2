import { Readable } from 'node:stream';
import { extract as tarExtract, pack as tarPack } from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { WorkspaceError } from '../errors/workspace-error.js';
import { rerootWorkspaceArchive } from './reroot-workspace-archive.js';

type Entry = { name: string; type?: 'file' | 'directory'; content?: string };

/** A tar of `entries`, as a Node stream. */
function tarOf(entries: Entry[]): Readable {
  const pack = tarPack();
  for (const { name, type = 'file', content = '' } of entries) {
    if (type === 'directory') pack.entry({ name, type });
    else pack.entry({ name, type }, content);
  }
  pack.finalize();
  return Readable.from(pack);
}

/** Names and contents of a tar stream's entries. */
async function entriesOf(source: Readable): Promise<string[]> {
  const extract = tarExtract();
  source.pipe(extract as unknown as NodeJS.WritableStream);
  source.once('error', (error) => extract.destroy(error));
  const lines: string[] = [];
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk);
    lines.push(`${entry.header.name}=${Buffer.concat(chunks).toString()}`);
  }
  return lines;
}

const manifest = (fileCount: number, totalBytes: number, source = 'p') =>
  JSON.stringify({
    excludes: [],
    file_count: fileCount,
    format: 'tar.gz',
    source,
    total_bytes: totalBytes,
  });

describe('rerootWorkspaceArchive', () => {
  it("drops the <source>/ prefix and OpenHands' own manifest", async () => {
    const lines = await entriesOf(
      rerootWorkspaceArchive(
        tarOf([
          { name: 'p/', type: 'directory' },
          { name: 'p/a/', type: 'directory' },
          { name: 'p/a/x.txt', content: 'hi\n' },
          { name: 'p/archive_manifest.json', content: manifest(1, 3) },
        ]),
      ),
    );
    expect(lines).toEqual(['./=', './a/=', './a/x.txt=hi\n']);
  });

  it('keeps a manifest that does not describe the files before it or is not last', async () => {
    const mismatch = await entriesOf(
      rerootWorkspaceArchive(
        tarOf([
          { name: 'p/x.txt', content: 'hi\n' },
          { name: 'p/archive_manifest.json', content: manifest(2, 3) },
        ]),
      ),
    );
    expect(mismatch).toEqual(['./x.txt=hi\n', `./archive_manifest.json=${manifest(2, 3)}`]);
    const notLast = await entriesOf(
      rerootWorkspaceArchive(
        tarOf([
          { name: 'p/archive_manifest.json', content: manifest(0, 0) },
          { name: 'p/x.txt', content: 'hi\n' },
        ]),
      ),
    );
    expect(notLast).toEqual([`./archive_manifest.json=${manifest(0, 0)}`, './x.txt=hi\n']);
  });

  it('fails the stream on an entry outside the archived directory', async () => {
    const error = await entriesOf(
      rerootWorkspaceArchive(
        tarOf([
          { name: 'p/x.txt', content: 'hi\n' },
          { name: 'q/y.txt', content: 'no\n' },
        ]),
      ),
    ).catch((reason: unknown) => reason);
    expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as Error).message).toMatch(/q\/y\.txt.*outside/);
  });

  it('refuses, naming the entry, a root that is no directory name or a name that escapes it', async () => {
    const refusal = async (entries: Entry[]) => {
      const error = await entriesOf(rerootWorkspaceArchive(tarOf(entries))).catch(
        (reason: unknown) => reason,
      );
      expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
      const { message, details } = error as WorkspaceError;
      return { message, entry: details.entry, reason: details.reason };
    };
    const cases: [Entry[], string, string, RegExp][] = [
      [[{ name: 'p/../../etc/passwd' }], 'p/../../etc/passwd', 'dot-dot', /"\.\."/],
      [[{ name: 'p/x.txt' }, { name: 'p/a/../../q.txt' }], 'p/a/../../q.txt', 'dot-dot', /"\.\."/],
      [[{ name: 'p//etc/passwd' }], 'p//etc/passwd', 'absolute', /absolute name below p\//],
      [[{ name: '/etc/passwd' }], '/etc/passwd', 'absolute', /absolute/],
      [[{ name: '../x.txt' }], '../x.txt', 'dot-dot', /"\.\."/],
      [[{ name: './x.txt' }], './x.txt', 'malformed', /directory name/],
      [[{ name: 'p/x.txt' }, { name: '/p/y.txt' }], '/p/y.txt', 'malformed', /outside.*p\//],
      [[{ name: 'p/x.txt' }, { name: 'p' }], 'p', 'malformed', /root p\/ but not a directory/],
    ];
    for (const [entries, entry, reason, message] of cases) {
      const refused = await refusal(entries);
      expect(refused, entry).toMatchObject({ entry, reason });
      expect(refused.message, entry).toMatch(message);
      expect(refused.message, entry).toContain(JSON.stringify(entry));
    }
  });

  it('renames long names carried in pax records', async () => {
    const long = `p/${'d'.repeat(200)}/file.txt`;
    const lines = await entriesOf(rerootWorkspaceArchive(tarOf([{ name: long, content: 'x' }])));
    expect(lines).toEqual([`./${'d'.repeat(200)}/file.txt=x`]);
  });
});
