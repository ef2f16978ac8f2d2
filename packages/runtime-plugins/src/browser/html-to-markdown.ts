import type TurndownService from 'turndown';
import { importOptionalLibrary } from '../plugin/optional-library.js';

/** What the table rule reads of a DOM node (turndown's own node types come from the DOM lib). */
interface MarkupNode {
  nodeName: string;
  childNodes: ArrayLike<MarkupNode>;
}

let converter: Promise<TurndownService> | undefined;

/**
 * Converts HTML to Markdown with turndown (loaded on first use): ATX headings, fenced code, `-`
 * bullets, tables as pipe tables (a row of header cells followed by a `---` line); scripts,
 * styles, form fields and embedded content dropped; runs of blank lines collapsed.
 */
export async function htmlToMarkdown(html: string): Promise<string> {
  converter ??= importOptionalLibrary('turndown', () => import('turndown')).then(
    ({ default: Turndown }) =>
      new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' })
        .remove([
          'script',
          'style',
          'noscript',
          'template',
          'iframe',
          'object',
          'embed',
          'canvas',
          'video',
          'audio',
          'select',
          'textarea',
        ])
        .addRule('tableCell', {
          filter: ['th', 'td'],
          replacement: (content) =>
            ` ${content.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim()} |`,
        })
        .addRule('tableRow', {
          filter: 'tr',
          replacement: (content, node) => {
            const cells = Array.from((node as unknown as MarkupNode).childNodes).filter(
              (child) => child.nodeName === 'TH' || child.nodeName === 'TD',
            );
            const header = cells.length > 0 && cells.every((cell) => cell.nodeName === 'TH');
            return `|${content}\n${header ? `|${' --- |'.repeat(cells.length)}\n` : ''}`;
          },
        })
        .addRule('tableSection', {
          filter: ['thead', 'tbody', 'tfoot'],
          replacement: (content) => content,
        })
        .addRule('tableCaption', {
          filter: 'caption',
          replacement: (content) => `${content.trim()}\n\n`,
        })
        .addRule('table', {
          filter: 'table',
          replacement: (content) => `\n\n${content.trim()}\n\n`,
        }),
  );
  const markdown = (await converter).turndown(html);
  return markdown
    .replace(/^[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
