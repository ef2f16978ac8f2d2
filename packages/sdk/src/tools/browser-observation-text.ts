import type { BrowserObservation } from '@agent-workspace/core';
import type { AxNodeWire } from '@agent-workspace/protocol';
import { truncateForModel } from './truncate-for-model.js';

/** Most characters of the page text the model reads in one observation. */
export const MAX_BROWSER_PAGE_TEXT_CHARS = 12_000;
/** Most characters of the accessibility tree the model reads in one observation. */
export const MAX_BROWSER_AXTREE_CHARS = 16_000;

/** Roles that carry nothing for the model when they have no name and no element id. */
const SILENT_ROLES = new Set(['generic', 'none', 'presentation', 'LineBreak']);

/**
 * What the model reads of a browser observation (never the screenshot): the URL, the title, the
 * error of the last action if any, the focused element and downloads, then the page as text and
 * its accessibility tree (`[bid] role 'name'`, indented by depth), each truncated with
 * `truncateForModel`. An `error` observation is its message.
 */
export function browserObservationText(observation: BrowserObservation): string {
  if (observation.observation === 'error') return truncateForModel(observation.content);
  const { extras } = observation;
  const lines = [`[Current URL: ${extras.url}]`, `[Page title: ${observation.title}]`];
  if (extras.error) {
    lines.push(
      `[Error when running the browser action: ${extras.last_browser_action_error || 'the action failed'}]`,
    );
  }
  if (extras.focused_element_bid) {
    lines.push(`[Focused element bid: ${extras.focused_element_bid}]`);
  }
  if (extras.open_pages_urls.length > 1) {
    lines.push(
      `[Open tabs: ${extras.open_pages_urls.join(', ')}; active tab index ${extras.active_page_index}]`,
    );
  }
  for (const download of observation.downloads) {
    lines.push(`[Downloaded ${download.url} to ${download.path} (${download.size} bytes)]`);
  }
  const pageText = observation.content.trim();
  lines.push(
    '============== BEGIN page text ==============',
    pageText === ''
      ? '(the page has no text)'
      : truncateForModel(pageText, { maxChars: MAX_BROWSER_PAGE_TEXT_CHARS }),
    '============== END page text ==============',
  );
  const tree = axTreeText(extras.axtree_object.nodes);
  if (tree !== '') {
    lines.push(
      '============== BEGIN accessibility tree ==============',
      truncateForModel(tree, {
        maxChars: MAX_BROWSER_AXTREE_CHARS,
        hint: 'Scroll, or act on an element shown, to see more.',
      }),
      '============== END accessibility tree ==============',
    );
  }
  return truncateForModel(lines.join('\n'));
}

/** BrowserGym's flat accessibility tree: one node a line, a tab per depth. */
export function axTreeText(nodes: readonly AxNodeWire[]): string {
  const lines: string[] = [];
  for (const node of nodes) {
    if (node.bid === null && node.name === '' && SILENT_ROLES.has(node.role)) continue;
    let line = `${'\t'.repeat(node.depth)}${node.bid === null ? '' : `[${node.bid}] `}${node.role}`;
    if (node.name !== '') line += ` ${quote(node.name)}`;
    if (node.value !== null && node.value !== '') line += `, value=${quote(node.value)}`;
    for (const [key, value] of Object.entries(node.properties)) {
      line +=
        value === true
          ? `, ${key}`
          : `, ${key}=${typeof value === 'string' ? quote(value) : value}`;
    }
    lines.push(line);
  }
  return lines.join('\n');
}

function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}
