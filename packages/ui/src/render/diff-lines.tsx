import type { DiffLine } from './unified-diff.js';
import './diff-lines.css';

/** Props of {@link DiffLines}. */
export interface DiffLinesProps {
  readonly lines: readonly DiffLine[];
  /** Class of the `<pre>` (its size and scrolling belong to the caller). */
  readonly class?: string;
  /** Makes the `<pre>` focusable, for a scrollable diff reached by keyboard. */
  readonly focusable?: boolean;
}

/** Unified diff lines in a `<pre>`: hunk headers, added and deleted lines coloured. */
export function DiffLines({ lines, class: className, focusable }: DiffLinesProps) {
  return (
    <pre
      class={className ? `diff-lines ${className}` : 'diff-lines'}
      tabIndex={focusable ? 0 : undefined}
    >
      {lines.map((line, index) => (
        <span key={index} class={`diff-line diff-${line.kind}`}>
          {line.text}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}
