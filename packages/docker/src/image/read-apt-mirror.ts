import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';

/** Options of {@link readAptMirror}. */
export interface ReadAptMirrorOptions {
  /** The Debian suite whose archive to find, e.g. `bookworm` (not `bookworm-security`). */
  suite: string;
  /**
   * The file-system root to read `etc/apt/sources.list{,.d}` under.
   * @default '/'
   */
  rootDir?: string | undefined;
}

/** One apt source, from either file format. */
interface AptSource {
  types: string[];
  uris: string[];
  suites: string[];
  components: string[];
}

/** Schemes debootstrap can download from. */
const SUPPORTED_URI = /^(https?|ftp|file):\/\//;

/** Parses one-line-style entries: `deb [options] URI suite component...`. */
function parseOneLineSources(text: string): AptSource[] {
  const sources: AptSource[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (line === '') continue;
    // Options in brackets may contain spaces: `[ arch=amd64 signed-by=... ]`.
    const [type = '', ...rest] = line.replace(/\[[^\]]*\]/, ' ').split(/\s+/);
    const [uri, suite, ...components] = rest.filter((token) => token !== '');
    if (uri && suite) sources.push({ types: [type], uris: [uri], suites: [suite], components });
  }
  return sources;
}

/** Parses deb822-style stanzas (`Types:`, `URIs:`, `Suites:`, `Components:`, `Enabled:`). */
function parseDeb822Sources(text: string): AptSource[] {
  const sources: AptSource[] = [];
  for (const stanza of text.split(/\n[ \t]*\n/)) {
    const fields = new Map<string, string>();
    let last: string | undefined;
    for (const line of stanza.split('\n')) {
      if (line.startsWith('#') || line.trim() === '') continue;
      const field = /^([A-Za-z0-9-]+):(.*)$/.exec(line);
      if (field) {
        last = field[1]!.toLowerCase();
        fields.set(last, field[2]!.trim());
      } else if (last && /^\s/.test(line)) {
        fields.set(last, `${fields.get(last)} ${line.trim()}`);
      }
    }
    if (fields.get('enabled')?.toLowerCase() === 'no') continue;
    const list = (name: string) => (fields.get(name) ?? '').split(/\s+/).filter(Boolean);
    if (fields.has('uris')) {
      sources.push({
        types: list('types'),
        uris: list('uris'),
        suites: list('suites'),
        components: list('components'),
      });
    }
  }
  return sources;
}

/** Every apt source of the system under `rootDir`, in apt's reading order. */
async function readAptSources(rootDir: string): Promise<AptSource[]> {
  const read = (file: string) => readFile(file, 'utf8').catch(() => '');
  const sources = parseOneLineSources(await read(path.join(rootDir, 'etc/apt/sources.list')));
  const partsDir = path.join(rootDir, 'etc/apt/sources.list.d');
  const parts = (await readdir(partsDir).catch(() => [] as string[])).sort();
  for (const name of parts) {
    const text = await read(path.join(partsDir, name));
    if (name.endsWith('.list')) sources.push(...parseOneLineSources(text));
    if (name.endsWith('.sources')) sources.push(...parseDeb822Sources(text));
  }
  return sources;
}

/**
 * The URI of the host's main Debian archive for `suite` (e.g. `http://mirror.example/debian`),
 * read from the apt configuration under `rootDir`: deb822 `etc/apt/sources.list.d/*.sources`
 * and one-line `etc/apt/sources.list` / `*.list`. Entries for other suites (`-security`,
 * `-updates`, other repositories) are ignored; one with the `main` component wins. Throws an
 * `INVALID_ARGUMENT` {@link WorkspaceError} when there is none: pass the mirror explicitly then.
 */
export async function readAptMirror(options: ReadAptMirrorOptions): Promise<string> {
  const rootDir = options.rootDir ?? '/';
  const candidates = (await readAptSources(rootDir)).filter(
    (source) => source.types.includes('deb') && source.suites.includes(options.suite),
  );
  const ordered = [
    ...candidates.filter((source) => source.components.includes('main')),
    ...candidates,
  ];
  const uri = ordered.flatMap((source) => source.uris).find((each) => SUPPORTED_URI.test(each));
  if (uri === undefined) {
    throw new WorkspaceError({
      code: 'INVALID_ARGUMENT',
      message: `no Debian archive for suite "${options.suite}" in the apt sources under ${path.join(rootDir, 'etc/apt')}; pass the \`mirror\` option`,
      details: { field: 'mirror', suite: options.suite, rootDir },
    });
  }
  return uri.replace(/\/+$/, '');
}
