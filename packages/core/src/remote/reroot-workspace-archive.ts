import { Readable } from 'node:stream';
import { WORKSPACE_ARCHIVE_MANIFEST_NAME } from '@agent-workspace/protocol/constants';
import { type Headers, extract as tarExtract, pack as tarPack } from 'tar-stream';
import { archiveEntryError } from '../internal/archive/archive-entry-error.js';
import { loadWireSchemas, type WireSchemas } from './load-wire-schemas.js';

/** A manifest larger than this is a file of the directory, never OpenHands' own. */
const MAX_MANIFEST_BYTES = 64 * 1024;

/** Pax records of an entry: tar-stream reads and writes them, its types leave them out. */
type Pax = Record<string, string> | null | undefined;

/**
 * Rewrites OpenHands' `tar.gz` workspace archive (already gunzipped) into a tar of the directory
 * itself: the `<source>/` every entry lies under is dropped, and the manifest OpenHands appends
 * (`archive_manifest.json`) is left out when it is its own. The manifest is held (it is small)
 * until the archive ends: it is OpenHands' when it is the last entry and its `file_count`,
 * `total_bytes` and `source` match the files before it (OpenHands leaves its manifest out when
 * the directory has a file of that name, so a file that matches all three would be dropped).
 * The first entry's first component is the root: it must be a directory name (not empty, `.`
 * or `..`), and every entry must lie under it; an entry outside it, one whose name below it is
 * absolute or holds `..`, a root entry that is not a directory and an entry of an unknown type
 * fail the stream with an archive error naming the entry (the extractor checks the re-rooted
 * names again).
 */
export function rerootWorkspaceArchive(input: Readable): Readable {
  const extract = tarExtract();
  const output = tarPack();
  const run = async () => {
    let root: string | undefined;
    let files = 0;
    let bytes = 0;
    let held: { header: Headers; content: Buffer } | undefined;
    for await (const entry of extract) {
      if (held !== undefined) {
        await addBuffer(output, held.header, held.content);
        held = undefined;
      }
      const { header } = entry;
      if (header.type === null || header.type === undefined) {
        throw archiveEntryError(
          header.name,
          'has a tar type that is not extracted',
          'unknown-type',
        );
      }
      root ??= archiveRoot(header.name);
      const name = relativeName(header.name, root, header.type);
      const size = header.size ?? 0;
      const rewritten: Headers = {
        ...header,
        name,
        pax: paxWithoutPath((header as { pax?: Pax }).pax),
      } as Headers;
      if (header.type === 'file' && name === `./${WORKSPACE_ARCHIVE_MANIFEST_NAME}`) {
        if (size <= MAX_MANIFEST_BYTES) {
          held = { header: rewritten, content: await readAll(entry) };
          continue;
        }
      }
      if (header.type === 'file') {
        files += 1;
        bytes += size;
      }
      await addStream(output, rewritten, entry);
    }
    if (
      held !== undefined &&
      !isOwnManifest(await loadWireSchemas(), held.content, { root, files, bytes })
    ) {
      await addBuffer(output, held.header, held.content);
    }
    output.finalize();
  };
  input.on('error', (error) => extract.destroy(error));
  // The reader went away (the extraction failed or was aborted): stop reading too.
  output.once('close', () => extract.destroy());
  input.pipe(extract as unknown as NodeJS.WritableStream);
  run().catch((error: unknown) => {
    input.unpipe(extract as unknown as NodeJS.WritableStream);
    input.destroy();
    extract.destroy();
    output.destroy(error as Error);
  });
  // A Node stream: the extractor pipes and unpipes it.
  return Readable.from(output);
}

/** The directory the first entry, `name`, lies in: its first component, a directory name. */
function archiveRoot(name: string): string {
  const root = name.split('/')[0] ?? '';
  if (root === '') throw archiveEntryError(name, 'has an absolute name', 'absolute');
  if (root === '..') throw archiveEntryError(name, 'has ".." in its name', 'dot-dot');
  if (root === '.') {
    throw archiveEntryError(name, 'does not lie under a directory name', 'malformed');
  }
  return root;
}

/**
 * `name` below `<root>/`, as `./...` (`./` for the root itself, which must be a directory).
 * Refuses a name outside `<root>/` and one that, below it, is absolute or holds `..`.
 */
function relativeName(name: string, root: string, type: Headers['type']): string {
  if (name === root || name === `${root}/`) {
    if (type !== 'directory') {
      throw archiveEntryError(
        name,
        `is the archive's root ${root}/ but not a directory`,
        'malformed',
      );
    }
    return './';
  }
  if (!name.startsWith(`${root}/`)) {
    throw archiveEntryError(name, `lies outside the archive's directory ${root}/`, 'malformed');
  }
  const rest = name.slice(root.length + 1);
  if (rest.startsWith('/')) {
    throw archiveEntryError(name, `has an absolute name below ${root}/`, 'absolute');
  }
  if (rest.split('/').includes('..')) {
    throw archiveEntryError(name, 'has ".." in its name', 'dot-dot');
  }
  return `./${rest}`;
}

/** The entry's pax records less `path` (the entry's new name replaces it), or none. */
function paxWithoutPath(pax: Pax): Pax {
  const { path: _name, ...rest } = pax ?? {};
  return Object.keys(rest).length > 0 ? rest : undefined;
}

/** Whether `content` is the manifest OpenHands appended to an archive of these files. */
function isOwnManifest(
  { workspaceArchiveManifestWireSchema }: WireSchemas,
  content: Buffer,
  expected: { root: string | undefined; files: number; bytes: number },
): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content.toString('utf8'));
  } catch {
    return false;
  }
  const manifest = workspaceArchiveManifestWireSchema.safeParse(parsed);
  return (
    manifest.success &&
    manifest.data.format === 'tar.gz' &&
    manifest.data.source === expected.root &&
    manifest.data.file_count === expected.files &&
    manifest.data.total_bytes === expected.bytes
  );
}

async function readAll(entry: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of entry) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function addBuffer(output: ReturnType<typeof tarPack>, header: Headers, content: Buffer) {
  return new Promise<void>((resolve, reject) => {
    output.entry(header, content, (error) => (error ? reject(error) : resolve()));
  });
}

function addStream(
  output: ReturnType<typeof tarPack>,
  header: Headers,
  entry: NodeJS.ReadableStream & { resume(): unknown },
) {
  return new Promise<void>((resolve, reject) => {
    if (header.type !== 'file' && header.type !== 'contiguous-file') {
      entry.resume();
      output.entry(header, (error) => (error ? reject(error) : resolve()));
      return;
    }
    const sink = output.entry(header, (error) => (error ? reject(error) : resolve()));
    // Either side fails when the archive breaks off; the run's catch reports it.
    entry.on('error', reject);
    sink.on('error', reject);
    entry.pipe(sink);
  });
}
