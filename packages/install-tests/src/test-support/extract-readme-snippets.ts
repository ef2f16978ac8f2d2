import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';

/** A ```ts code block of a README. */
export interface ReadmeSnippet {
  /** The README, relative to the repository (forward slashes). */
  readme: string;
  /** The README line (1-based) of the snippet's first line of code. */
  line: number;
  code: string;
  /** Whether {@link NOT_STANDALONE_MARKER} precedes it: it is listed, not typechecked. */
  notStandalone: boolean;
  /** A module name unique to the snippet, e.g. `packages-core-README-L120.ts`. */
  moduleName: string;
}

/**
 * The comment that exempts the ```ts block right after it (blank lines between allowed) from
 * the snippet test, for a fragment that cannot stand alone. Every use is counted by the test.
 */
export const NOT_STANDALONE_MARKER = '<!-- snippet: not-standalone -->';

/** Options of {@link extractReadmeSnippets}. */
export interface ExtractReadmeSnippetsOptions {
  /** The repository; its tracked and untracked-but-not-ignored README.md files are read. */
  repoDir: string;
}

/**
 * Every ```ts block of every README.md of the repository outside node_modules, in path order.
 * A block may be indented (inside a list item); its indentation is removed.
 */
export async function extractReadmeSnippets(
  options: ExtractReadmeSnippetsOptions,
): Promise<ReadmeSnippet[]> {
  const { repoDir } = options;
  const { stdout } = await execa(
    'git',
    [
      'ls-files',
      '-z',
      '--cached',
      '--others',
      '--exclude-standard',
      '--',
      'README.md',
      '*/README.md',
    ],
    { cwd: repoDir },
  );
  const readmes = [...new Set(stdout.split('\0'))]
    .filter((file) => file !== '' && !file.split('/').includes('node_modules'))
    .sort();
  const snippets: ReadmeSnippet[] = [];
  for (const readme of readmes) {
    const text = await readFile(path.join(repoDir, readme), 'utf8').catch(() => undefined);
    if (text !== undefined) snippets.push(...snippetsOf(readme, text));
  }
  return snippets;
}

/** The ```ts blocks of one README's text. */
function snippetsOf(readme: string, text: string): ReadmeSnippet[] {
  const lines = text.split('\n');
  const snippets: ReadmeSnippet[] = [];
  let markerLine: number | undefined;
  for (let index = 0; index < lines.length; index++) {
    const current = lines[index] as string;
    if (current.trim() === NOT_STANDALONE_MARKER) {
      markerLine = index + 1;
      continue;
    }
    const fence = /^(\s*)```(\S*)\s*$/.exec(current);
    if (fence === null) {
      if (current.trim() !== '' && markerLine !== undefined) throw strayMarker(readme, markerLine);
      continue;
    }
    const [, indent = '', language] = fence;
    const end = lines.findIndex((line, i) => i > index && line.trim() === '```');
    if (end === -1) throw new Error(`${readme}:${index + 1}: a code block is never closed`);
    if (language === 'ts') {
      const line = index + 2;
      snippets.push({
        readme,
        line,
        code: lines
          .slice(index + 1, end)
          .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
          .join('\n'),
        notStandalone: markerLine !== undefined,
        moduleName: `${readme.replace(/\.md$/, '').replace(/[^A-Za-z0-9]+/g, '-')}-L${line}.ts`,
      });
    } else if (markerLine !== undefined) {
      throw strayMarker(readme, markerLine);
    }
    markerLine = undefined;
    index = end;
  }
  if (markerLine !== undefined) throw strayMarker(readme, markerLine);
  return snippets;
}

function strayMarker(readme: string, line: number): Error {
  return new Error(
    `${readme}:${line}: ${NOT_STANDALONE_MARKER} is not followed by a \`\`\`ts block`,
  );
}
