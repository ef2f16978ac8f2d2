import type { Locator, Page } from 'playwright-core';
import type { ChromiumInstance } from './chromium-instance.js';
import type { Deadline } from './deadline.js';
import { BID_ATTRIBUTE } from './page-snapshot-expression.js';
import type { BrowserAction } from './parse-browser-actions.js';

/**
 * Most time one element action (click, fill, ...) waits for its element to be actionable, within
 * the action's own time: an element hidden behind an overlay fails after this rather than eating
 * the whole timeout.
 */
const ELEMENT_ACTION_TIMEOUT_MS = 15_000;
/** Most time the check that a bid exists may take. */
const LOOKUP_TIMEOUT_MS = 5_000;
/** Most time a popup a click or key press opened may take to be reported. */
const POPUP_TIMEOUT_MS = 5_000;

/**
 * Runs parsed BrowserGym actions in order on the active page, each bounded by `deadline`, and
 * then waits (within it) for the active page to finish loading, as a click may have started a
 * navigation. Stops at the first failure and answers it as text for `last_browser_action_error`,
 * naming the call; answers `undefined` when all went well. Rejects only once the browser died.
 */
export async function runBrowserActions(
  instance: ChromiumInstance,
  actions: readonly BrowserAction[],
  deadline: Deadline,
): Promise<string | undefined> {
  for (const action of actions) {
    const where = actions.length > 1 ? `line ${action.line}: ${action.source}` : action.source;
    if (deadline.expired) {
      return `${where}: not run, ${deadline.aborted ? 'the action was cancelled' : 'the time of the action ran out'}`;
    }
    try {
      await runAction(instance, action, deadline);
    } catch (error) {
      if (!instance.alive) throw error;
      return `${where}: ${describeError(error)}`;
    }
  }
  const page = await instance.activePage(deadline);
  try {
    await waitForLoad(page, deadline.timeoutMs());
  } catch (error) {
    if (!instance.alive) throw error;
    return describeError(error);
  }
  return undefined;
}

async function runAction(
  instance: ChromiumInstance,
  action: BrowserAction,
  deadline: Deadline,
): Promise<void> {
  const page = await instance.activePage(deadline);
  const elementTimeout = () => deadline.timeoutMs(ELEMENT_ACTION_TIMEOUT_MS);
  switch (action.name) {
    case 'goto': {
      const timeout = deadline.timeoutMs();
      const downloadsSeen = instance.downloadsSeen;
      try {
        await page.goto(action.url, { waitUntil: 'load', timeout });
      } catch (error) {
        // A URL that answers with an attachment is a download, not a failed navigation.
        if (!/Download is starting/.test(String(error))) throw navigationError(error, timeout);
        instance.expectDownloadSince(downloadsSeen);
      }
      return;
    }
    case 'go_back':
    case 'go_forward': {
      const timeout = deadline.timeoutMs();
      const options = { waitUntil: 'load', timeout } as const;
      await (action.name === 'go_back' ? page.goBack(options) : page.goForward(options)).catch(
        (error) => {
          throw navigationError(error, timeout);
        },
      );
      return;
    }
    case 'noop':
      await page.waitForTimeout(Math.min(action.waitMs, deadline.remainingMs()));
      return;
    case 'click':
    case 'dblclick': {
      const locator = await locate(page, action.bid, deadline);
      const options = {
        button: action.button,
        modifiers: action.modifiers,
        timeout: elementTimeout(),
      };
      await withPopup(instance, deadline, () =>
        action.name === 'click' ? locator.click(options) : locator.dblclick(options),
      );
      return;
    }
    case 'hover':
      await (await locate(page, action.bid, deadline)).hover({ timeout: elementTimeout() });
      return;
    case 'focus':
      await (await locate(page, action.bid, deadline)).focus({ timeout: elementTimeout() });
      return;
    case 'clear':
      await (await locate(page, action.bid, deadline)).clear({ timeout: elementTimeout() });
      return;
    case 'fill':
      await (await locate(page, action.bid, deadline)).fill(action.value, {
        timeout: elementTimeout(),
      });
      return;
    case 'select_option':
      await (await locate(page, action.bid, deadline)).selectOption(action.options, {
        timeout: elementTimeout(),
      });
      return;
    case 'press': {
      const locator = await locate(page, action.bid, deadline);
      await withPopup(instance, deadline, () =>
        locator.press(action.keyComb, { timeout: elementTimeout() }),
      );
      return;
    }
    case 'scroll':
      await page.mouse.wheel(action.deltaX, action.deltaY);
      // Let the page see the scroll (its scroll events run) before it is observed.
      await deadline.race(
        page.evaluate('new Promise((resolve) => requestAnimationFrame(resolve))'),
      );
      return;
    case 'new_tab': {
      const created = await deadline.race(instance.context.newPage());
      if (!created.settled) throw new Error('Chromium did not open a new tab in time');
      instance.setActive(created.value);
      return;
    }
    case 'tab_close':
      await page.close();
      return;
    case 'tab_focus': {
      const pages = instance.pages();
      const target = pages.at(action.index);
      if (target === undefined) {
        throw new Error(
          `there is no tab ${action.index}; ${pages.length} tab(s) are open (0 to ${pages.length - 1})`,
        );
      }
      instance.setActive(target);
      await target.bringToFront();
      return;
    }
    case 'send_msg_to_user':
      // A message for the user, not for the page.
      return;
  }
}

/** The element with `bid`, after checking it is on the page (a missing one would wait in vain). */
async function locate(page: Page, bid: string, deadline: Deadline): Promise<Locator> {
  const missing = new Error(
    `no element with bid "${bid}" on the page; use a bid from the latest observation`,
  );
  if (!/^[\w-]+$/.test(bid)) throw missing;
  const locator = page.locator(`[${BID_ATTRIBUTE}="${bid}"]`).first();
  const count = await deadline.race(locator.count(), LOOKUP_TIMEOUT_MS);
  if (!count.settled) throw new Error('the page did not respond while looking up the element');
  if (count.value === 0) throw missing;
  return locator;
}

/**
 * Runs an input action and, when it opened a popup, waits for Playwright to report the page, so
 * that the popup is the active page the observation shows.
 */
async function withPopup(
  instance: ChromiumInstance,
  deadline: Deadline,
  input: () => Promise<void>,
): Promise<void> {
  const popupTargets = instance.popupTargets;
  const pagesSeen = instance.pagesSeen;
  await input();
  if (instance.popupTargets > popupTargets) {
    await instance.waitForPage(pagesSeen, deadline.timeoutMs(POPUP_TIMEOUT_MS));
  }
}

/** Waits for the `load` event of the page's current document. */
async function waitForLoad(page: Page, timeout: number): Promise<void> {
  await page.waitForLoadState('load', { timeout }).catch((error) => {
    throw navigationError(error, timeout);
  });
}

/** A navigation's time-out in words an agent can act on; other errors as they are. */
function navigationError(error: unknown, timeoutMs: number): unknown {
  if (!isTimeout(error)) return error;
  return new Error(
    `timed out after ${seconds(timeoutMs)} s waiting for the page to load; the observation shows what loaded so far`,
  );
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

/**
 * The first line of a Playwright error without its `locator.click:` prefix, plus the last step
 * of its call log (e.g. "element is not visible") when there is one.
 */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const [first = '', ...rest] = error.message.split('\n');
  const message = first.replace(/^[\w.]+: /, '').trim();
  const logStart = rest.findIndex((line) => line.trim() === 'Call log:');
  const lastStep =
    logStart === -1 ? undefined : rest.slice(logStart + 1).findLast((line) => line.trim() !== '');
  return lastStep ? `${message} (last step: ${lastStep.trim().replace(/^- /, '')})` : message;
}
