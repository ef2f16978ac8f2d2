import type { AxNodeWire, BrowserOutputObservationWire } from '@agent-workspace/protocol';
import type { Page } from 'playwright-core';
import type { BrowserUrlPolicy } from './browser-url-policy.js';
import { capText } from './cap-text.js';
import type { ChromiumInstance } from './chromium-instance.js';
import type { Deadline } from './deadline.js';
import { formatAxTree } from './format-ax-tree.js';
import { htmlToMarkdown } from './html-to-markdown.js';
import { type PageSnapshot, pageSnapshotExpression } from './page-snapshot-expression.js';

/** Most accessibility-tree nodes of one observation. */
const MAX_AX_NODES = 5_000;
/** Most elements one snapshot walks. */
const MAX_WALKED_ELEMENTS = 50_000;
/** Longest accessible name or field value kept, in characters. */
const MAX_TEXT_CHARS = 500;
/** Most time a screenshot may take within the action's time. */
const SCREENSHOT_TIMEOUT_MS = 10_000;
/** Least time a snapshot must have had before a page that did not answer counts as stuck. */
const MIN_STUCK_EVIDENCE_MS = 1_000;
/** How many times a snapshot is retried when a navigation replaced the document under it. */
const SNAPSHOT_ATTEMPTS = 3;

/** What an observation reports besides the page. */
export interface ObservationDetails {
  trigger: 'browse' | 'browse_interactive';
  /** The action text, for `last_browser_action`. */
  actionText: string;
  returnAxtree: boolean;
  /** Cap of the Markdown (and of the tree text) in `content`, in characters. */
  maxContentChars: number;
  /** What went wrong so far; the observation has `error: true` when there is anything. */
  errors: readonly string[];
  downloads: BrowserOutputObservationWire['downloads'];
}

/**
 * Observes the active page: snapshots it (stable bids, accessibility tree, focused element,
 * visible HTML), converts the HTML to Markdown for `content` (the tree appended as text with
 * `returnAxtree`), takes a viewport screenshot, all within `deadline`. A page whose JavaScript
 * does not let the snapshot run in time, or that crashed, is closed (failing that, the browser is
 * killed), and the observation says so. So is a page with a frame the URL policy refuses, before
 * and after it is read, and nothing of it is shown. Rejects only once the browser died.
 */
export async function observePage(
  instance: ChromiumInstance,
  details: ObservationDetails,
  deadline: Deadline,
): Promise<BrowserOutputObservationWire> {
  const page = await instance.activePage(deadline);
  const refused = await refusedFrame(page, instance.urlPolicy);
  if (refused !== undefined) return closeRefusedPage(instance, page, details, refused);
  const pages = instance.pages();
  const waitedMs = deadline.remainingMs();
  const snapshot = await takeSnapshot(page, details.maxContentChars, deadline).catch(
    (error: unknown) => {
      if (!instance.alive) throw error;
      return error instanceof Error ? error : new Error(String(error));
    },
  );
  if (snapshot === undefined || snapshot instanceof Error) {
    const url = page.url();
    const errors = [...details.errors];
    if (snapshot instanceof Error && !/crash/i.test(snapshot.message)) {
      errors.push(`the page at ${url} could not be read: ${snapshot.message.split('\n')[0]}`);
    } else if (snapshot === undefined && waitedMs < MIN_STUCK_EVIDENCE_MS) {
      errors.push(`no time was left to read the page at ${url}`);
    } else if (!deadline.aborted) {
      await instance.closeStuckPage(page);
      errors.push(
        snapshot === undefined
          ? `the page at ${url} stopped responding (its JavaScript did not yield within ${Math.round(waitedMs / 100) / 10} s) and was closed`
          : `the page at ${url} crashed and was closed`,
      );
    }
    return unreadObservation(instance, details, errors, url, page);
  }
  // Chromium paints the screenshot while this process converts the page to Markdown.
  const screenshot = deadline
    .race(page.screenshot({ type: 'png', timeout: deadline.timeoutMs(SCREENSHOT_TIMEOUT_MS) }))
    .catch(() => undefined);
  let content = capText(await htmlToMarkdown(snapshot.html), details.maxContentChars);
  const shot = await screenshot;
  // A frame that navigated while the page was read: what was read may be of it.
  const refusedLater = await refusedFrame(page, instance.urlPolicy);
  if (refusedLater !== undefined) return closeRefusedPage(instance, page, details, refusedLater);
  if (snapshot.truncated)
    content += '\n\n[... the page is larger than one observation holds; part of it is left out]';
  if (details.returnAxtree) {
    content += `\n\n---\nAccessibility tree ([bid] role 'name'):\n${capText(formatAxTree(snapshot.nodes), details.maxContentChars)}`;
  }
  return assemble(details, details.errors, {
    url: snapshot.url,
    title: snapshot.title,
    content,
    nodes: snapshot.nodes,
    focusedBid: snapshot.focusedBid,
    screenshot: shot?.settled ? `data:image/png;base64,${shot.value.toString('base64')}` : '',
    pageUrls: pages.map((open) => open.url()),
    activeIndex: pages.indexOf(page),
  });
}

/**
 * Runs the snapshot script; `undefined` when it did not answer by the deadline (the page's
 * JavaScript is busy). A navigation that replaces the document mid-snapshot is waited out.
 */
async function takeSnapshot(
  page: Page,
  maxContentChars: number,
  deadline: Deadline,
): Promise<PageSnapshot | undefined> {
  const expression = pageSnapshotExpression({
    maxNodes: MAX_AX_NODES,
    maxElements: MAX_WALKED_ELEMENTS,
    maxTextChars: MAX_TEXT_CHARS,
    // Enough HTML for the Markdown cap, little enough to convert quickly (turndown blocks).
    maxHtmlChars: Math.min(2_000_000, maxContentChars * 8),
  });
  for (let attempt = 1; ; attempt++) {
    try {
      const raced = await deadline.race(page.evaluate(expression) as Promise<PageSnapshot>);
      return raced.settled ? raced.value : undefined;
    } catch (error) {
      if (attempt >= SNAPSHOT_ATTEMPTS || !/context was destroyed|navigat/i.test(String(error)))
        throw error;
      await page
        .waitForLoadState('domcontentloaded', { timeout: deadline.timeoutMs() })
        .catch(() => {});
    }
  }
}

/** Why the policy refuses a frame of `page` (the first such), or `undefined`. */
async function refusedFrame(page: Page, policy: BrowserUrlPolicy): Promise<string | undefined> {
  for (const frame of page.frames()) {
    const reason = await policy.refusesFrame(frame.url());
    if (reason !== undefined) return reason;
  }
  return undefined;
}

/** Closes a page that shows something the URL policy refuses; the observation shows none of it. */
async function closeRefusedPage(
  instance: ChromiumInstance,
  page: Page,
  details: ObservationDetails,
  reason: string,
): Promise<BrowserOutputObservationWire> {
  const url = page.url();
  await instance.closeStuckPage(page);
  const errors = [
    ...details.errors,
    `the page at ${url} showed what the browser does not open (${reason}); it was closed and nothing of it is shown`,
  ];
  // It was closed: the observation names no active page.
  return unreadObservation(instance, details, errors, url, undefined);
}

/**
 * The observation of a page that is not shown: its errors as the content, nothing of the page,
 * the pages open now, and `page`'s index among them (`-1` for none).
 */
function unreadObservation(
  instance: ChromiumInstance,
  details: ObservationDetails,
  errors: readonly string[],
  url: string,
  page: Page | undefined,
): BrowserOutputObservationWire {
  const remaining = instance.pages();
  return assemble(details, errors, {
    url,
    title: '',
    content: errors.join('\n'),
    nodes: [],
    focusedBid: '',
    screenshot: '',
    pageUrls: remaining.map((open) => open.url()),
    activeIndex: page === undefined ? -1 : remaining.indexOf(page),
  });
}

interface ObservedPage {
  url: string;
  title: string;
  content: string;
  nodes: AxNodeWire[];
  focusedBid: string;
  screenshot: string;
  pageUrls: string[];
  activeIndex: number;
}

function assemble(
  details: ObservationDetails,
  errors: readonly string[],
  observed: ObservedPage,
): BrowserOutputObservationWire {
  return {
    observation: 'browse',
    content: observed.content,
    extras: {
      url: observed.url,
      trigger_by_action: details.trigger,
      screenshot: observed.screenshot,
      screenshot_path: null,
      set_of_marks: '',
      error: errors.length > 0,
      goal_image_urls: [],
      open_pages_urls: observed.pageUrls,
      active_page_index: observed.activeIndex,
      dom_object: {},
      axtree_object: { nodes: observed.nodes },
      extra_element_properties: {},
      last_browser_action: details.actionText,
      last_browser_action_error: errors.join('; '),
      focused_element_bid: observed.focusedBid,
    },
    title: observed.title,
    downloads: details.downloads,
  };
}
