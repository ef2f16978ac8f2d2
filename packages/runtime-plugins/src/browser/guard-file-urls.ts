import type { Browser } from 'playwright-core';
import type { PluginLogger } from '../plugin/runtime-plugin.js';
import type { BrowserUrlPolicy } from './browser-url-policy.js';

/** Options of {@link guardFileUrls}. */
export interface GuardFileUrlsOptions {
  browser: Browser;
  policy: BrowserUrlPolicy;
  logger: PluginLogger;
}

/**
 * Holds every `file:` request of the browser (navigations of every page, popup and frame, the
 * inner load of `view-source:`, subresources) until the policy decided it: an allowed one goes on
 * to the canonical file that was checked, any other fails with `ERR_ACCESS_DENIED`, so its
 * content never reaches a page. Playwright's routing does not see `file:`; the DevTools `Fetch`
 * domain on the browser target does, for targets that do not exist yet too. The interception
 * lives as long as the browser.
 */
export async function guardFileUrls(options: GuardFileUrlsOptions): Promise<void> {
  const { policy, logger } = options;
  const cdp = await options.browser.newBrowserCDPSession();
  cdp.on('Fetch.requestPaused', ({ requestId, request }) => {
    void (async () => {
      // Whatever goes wrong, the request must be answered: a paused one would hang its page.
      const decision = await Promise.resolve()
        .then(() => policy.file(new URL(request.url)))
        .catch((error: unknown) => ({ allowed: false, reason: String(error) }) as const);
      if (decision.allowed) {
        const url = decision.url === request.url ? undefined : decision.url;
        await cdp.send('Fetch.continueRequest', { requestId, ...(url ? { url } : {}) });
        return;
      }
      logger.info({ url: request.url, reason: decision.reason }, 'the browser refused a file');
      await cdp.send('Fetch.failRequest', { requestId, errorReason: 'AccessDenied' });
    })().catch(() => {
      // The request or the browser is gone.
    });
  });
  await cdp.send('Fetch.enable', { patterns: [{ urlPattern: 'file:*' }] });
}
