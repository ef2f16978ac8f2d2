import { type ComponentChildren, createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { truncateText } from './truncate-text.js';

/** The long texts shown in full, by id; kept by the list so a scrolled-away item keeps it. */
export interface ShownInFull {
  has(id: string): boolean;
  toggle(id: string): void;
}

/** The list's {@link ShownInFull}; without a provider, nothing can be shown in full. */
export const ShownInFullContext = createContext<ShownInFull>({
  has: () => false,
  toggle: () => {},
});

/** Props of {@link LongText}. */
export interface LongTextProps {
  /** Unique in the list: which text "Show all" expands. */
  readonly id: string;
  readonly text: string;
  /** Renders the shown part; default the text as is. */
  readonly render?: (text: string) => ComponentChildren;
  readonly class?: string;
}

/** Preformatted text cut to its first lines, with a "Show all" / "Show less" toggle. */
export function LongText({ id, text, render, class: className }: LongTextProps) {
  const shown = useContext(ShownInFullContext);
  const full = shown.has(id);
  const cut = truncateText(text);
  const visible = full || !cut.truncated ? text : cut.text;
  return (
    <div class="long-text">
      <pre class={className}>{render ? render(visible) : visible}</pre>
      {cut.truncated && (
        <button
          type="button"
          class="secondary small"
          aria-expanded={full}
          onClick={() => shown.toggle(id)}
        >
          {full ? 'Show less' : `Show all (${cut.totalLines} lines)`}
        </button>
      )}
    </div>
  );
}
