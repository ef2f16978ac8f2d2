import { rm, stat } from 'node:fs/promises';
import type { BrowserOutputObservationWire } from '@agent-workspace/protocol';
import type { Download } from 'playwright-core';
import type { Deadline } from './deadline.js';
import { reserveDownloadPath } from './reserve-download-path.js';

type BrowserDownloadWire = BrowserOutputObservationWire['downloads'][number];

/** What {@link saveDownloads} did: the files saved, and one sentence per download that failed. */
export interface SavedDownloads {
  saved: BrowserDownloadWire[];
  errors: string[];
}

/**
 * Saves each download into `dir` under its suggested (made safe, never overwriting) name, waiting
 * for unfinished ones until `deadline`; a download still running then is cancelled. Playwright's
 * temporary copy is deleted either way.
 */
export async function saveDownloads(
  downloads: readonly Download[],
  dir: string,
  deadline: Deadline,
): Promise<SavedDownloads> {
  const result: SavedDownloads = { saved: [], errors: [] };
  for (const download of downloads) {
    const name = download.suggestedFilename();
    const target = await reserveDownloadPath(dir, name);
    try {
      const saved = await deadline.race(download.saveAs(target));
      if (saved.settled) {
        result.saved.push({ path: target, url: download.url(), size: (await stat(target)).size });
      } else {
        await download.cancel().catch(() => {});
        await rm(target, { force: true });
        result.errors.push(`the download of ${name} did not finish within the action's time`);
      }
    } catch (error) {
      await rm(target, { force: true });
      const failure = await download.failure().catch(() => null);
      result.errors.push(`the download of ${name} failed: ${failure ?? String(error)}`);
    }
    await download.delete().catch(() => {});
  }
  return result;
}
