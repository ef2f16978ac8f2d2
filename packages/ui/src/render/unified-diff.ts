import { structuredPatch } from 'diff';

/** One rendered line of a unified diff. */
export interface DiffLine {
  /** `hunk` header, `add`ed, `del`eted, unchanged `context`, or a `note` such as a missing newline. */
  readonly kind: 'hunk' | 'add' | 'del' | 'context' | 'note';
  /** The line as a unified diff prints it (with its `+`, `-` or space prefix). */
  readonly text: string;
}

/** What {@link unifiedDiff} made of two versions of a file. */
export type UnifiedDiff =
  | { readonly kind: 'lines'; readonly lines: readonly DiffLine[] }
  | { readonly kind: 'same' }
  | { readonly kind: 'binary' }
  | { readonly kind: 'too-large' };

/** Options of {@link unifiedDiff}. */
export interface UnifiedDiffOptions {
  /** The file at the base (`null`: it did not exist). */
  readonly original: string | null;
  /** The file now (`null`: it was deleted). */
  readonly modified: string | null;
  /** Lines of context around each change; default 3. */
  readonly context?: number;
  /** Most characters of both versions together that are diffed; default 4 MiB. */
  readonly maxChars?: number;
  /** Most milliseconds spent diffing before giving up as too large; default 2000. */
  readonly timeoutMs?: number;
}

/** Default {@link UnifiedDiffOptions.maxChars}. */
export const MAX_DIFF_CHARS = 4 * 1024 * 1024;

/**
 * The unified diff of a file's two versions as lines to colour: hunk headers, added, deleted and
 * context lines. Binary contents (a NUL character) and versions too large or too slow to diff
 * are reported as such instead.
 */
export function unifiedDiff(options: UnifiedDiffOptions): UnifiedDiff {
  const original = options.original ?? '';
  const modified = options.modified ?? '';
  if (original.includes('\0') || modified.includes('\0')) return { kind: 'binary' };
  if (original.length + modified.length > (options.maxChars ?? MAX_DIFF_CHARS)) {
    return { kind: 'too-large' };
  }
  if (original === modified) return { kind: 'same' };
  const patch = structuredPatch('a', 'b', original, modified, undefined, undefined, {
    context: options.context ?? 3,
    timeout: options.timeoutMs ?? 2000,
  });
  if (!patch) return { kind: 'too-large' };
  const lines: DiffLine[] = [];
  for (const hunk of patch.hunks) {
    lines.push({
      kind: 'hunk',
      text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
    });
    for (const text of hunk.lines) lines.push({ kind: kindOf(text), text });
  }
  return { kind: 'lines', lines };
}

function kindOf(line: string): DiffLine['kind'] {
  switch (line[0]) {
    case '+':
      return 'add';
    case '-':
      return 'del';
    case '\\':
      return 'note';
    default:
      return 'context';
  }
}
