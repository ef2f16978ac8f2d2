import { useContext } from 'preact/hooks';
import { DiffLines } from '../render/diff-lines.js';
import { type UnifiedDiff, unifiedDiff } from '../render/unified-diff.js';
import { ShownInFullContext } from './long-text.js';

/** Diff lines shown until "Show all". */
const SHOWN_DIFF_LINES = 60;

/** Most characters of both versions of an edited file that are diffed in the log. */
export const MAX_DIFFED_CHARS = 1_000_000;

/** Diffs already computed, by the observation they came from (items remount as they scroll). */
const computed = new WeakMap<object, UnifiedDiff>();

/** Props of {@link FileDiff}. */
export interface FileDiffProps {
  /** Unique in the list: which diff "Show all" expands. */
  readonly id: string;
  /** The observation (identity caches the diff). */
  readonly source: object;
  readonly path: string;
  /** `null`: the edit created the file, every line is added. */
  readonly oldContent: string | null;
  readonly newContent: string;
}

/** A file edit as a unified diff, added and removed lines coloured and marked `+` / `-`. */
export function FileDiff({ id, source, path, oldContent, newContent }: FileDiffProps) {
  const shown = useContext(ShownInFullContext);
  let diff = computed.get(source);
  if (!diff) {
    diff = unifiedDiff({
      original: oldContent,
      modified: newContent,
      maxChars: MAX_DIFFED_CHARS,
      timeoutMs: 500,
    });
    computed.set(source, diff);
  }
  if (diff.kind === 'same') return <p class="muted">No change to {path}.</p>;
  if (diff.kind !== 'lines') {
    const why = diff.kind === 'binary' ? 'binary' : 'too large to show as a diff';
    return (
      <p class="muted">
        The change to {path} is {why}.
      </p>
    );
  }
  const { lines } = diff;
  const full = shown.has(id);
  return (
    <figure class="file-diff" aria-label={`Diff of ${path}`}>
      <DiffLines lines={full ? lines : lines.slice(0, SHOWN_DIFF_LINES)} />
      {lines.length > SHOWN_DIFF_LINES && (
        <button
          type="button"
          class="secondary small"
          aria-expanded={full}
          onClick={() => shown.toggle(id)}
        >
          {full ? 'Show less' : `Show all (${lines.length} lines)`}
        </button>
      )}
    </figure>
  );
}
