import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** What the policy says of one URL: the URL to load instead (same or canonical), or why not. */
export type UrlDecision = { allowed: true; url: string } | { allowed: false; reason: string };

/** Schemes an agent may ask for besides `file:` (checked) and `about:blank`. */
const REQUESTABLE_SCHEMES = new Set(['http:', 'https:', 'data:']);
/** Schemes a frame may also show: blobs its page made, and Chromium's own error page. */
const FRAME_SCHEMES = new Set([...REQUESTABLE_SCHEMES, 'blob:']);
const ERROR_PAGE_URL = 'chrome-error://chromewebdata/';

/**
 * Which URLs the browser plugin opens and shows. Allowed: `http:`, `https:`, `data:` and
 * `about:blank`, and `file:` URLs whose path, with every symlink resolved, is inside the working
 * dir. Frames may also show `blob:` URLs (content their page made) and Chromium's error page.
 * Everything else is refused: `file:` outside the working dir (also through a symlink inside
 * that points out), `view-source:` of anything (inside the working dir too: the file tools read
 * sources), `filesystem:`, `chrome:`, `chrome-untrusted:`, `devtools:`, `chrome-extension:`,
 * `javascript:` and any other scheme.
 *
 * An allowed `file:` URL is answered with the canonical URL of the file that was checked (the
 * working dir's own path, then the resolved rest), so that Chromium loads what was checked and
 * not what a symlink swapped in later points to.
 */
export class BrowserUrlPolicy {
  /** The working dir as the plugin was given it (and as the sandbox shows it). */
  readonly workingDir: string;
  readonly #realWorkingDir: string;

  private constructor(workingDir: string, realWorkingDir: string) {
    this.workingDir = workingDir;
    this.#realWorkingDir = realWorkingDir;
  }

  /** The policy of `workingDir` (an existing absolute directory; its own symlinks are resolved). */
  static async create(workingDir: string): Promise<BrowserUrlPolicy> {
    const resolved = path.resolve(workingDir);
    return new BrowserUrlPolicy(resolved, await realpath(resolved));
  }

  /** Decides a URL the agent asked for (`browse`, `goto(...)`); the reason reads after the field. */
  async requested(url: string): Promise<UrlDecision> {
    const parsed = parseUrl(url);
    if (parsed === undefined) return { allowed: false, reason: 'is not an absolute URL' };
    if (parsed.protocol === 'file:') return this.file(parsed);
    if (REQUESTABLE_SCHEMES.has(parsed.protocol) || isAbout(parsed, ['blank'])) {
      return { allowed: true, url: parsed.href };
    }
    return {
      allowed: false,
      reason: `is refused: ${parsed.protocol} URLs are not opened; the browser opens http(s), data: and about:blank URLs, and file: URLs inside the working dir ${this.workingDir}`,
    };
  }

  /** Why a frame at `url` must not be shown, or `undefined` when it may. */
  async refusesFrame(url: string): Promise<string | undefined> {
    // A frame that has not committed a document yet shows nothing.
    if (url === '') return;
    const parsed = parseUrl(url);
    if (parsed === undefined) return `${url} is not an absolute URL`;
    if (parsed.protocol === 'file:') {
      const decision = await this.file(parsed);
      return decision.allowed ? undefined : `${url} ${decision.reason}`;
    }
    if (FRAME_SCHEMES.has(parsed.protocol) || isAbout(parsed, ['blank', 'srcdoc'])) return;
    if (parsed.href === ERROR_PAGE_URL) return;
    return `${parsed.protocol} URLs are not shown`;
  }

  /**
   * Decides a `file:` URL: allowed with its canonical URL when the file it names, every symlink
   * resolved, is inside the working dir (and exists).
   */
  async file(url: URL): Promise<UrlDecision> {
    if (url.host !== '' && url.host !== 'localhost') {
      return { allowed: false, reason: `is refused: file: URLs on another host (${url.host})` };
    }
    let filePath: string;
    try {
      filePath = fileURLToPath(url);
    } catch {
      return { allowed: false, reason: 'is refused: its path holds an encoded slash or NUL' };
    }
    let real: string;
    try {
      real = await realpath(filePath);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return {
        allowed: false,
        reason:
          code === 'ENOENT' || code === 'ENOTDIR'
            ? `names a file that does not exist: ${filePath}`
            : `names a file that cannot be opened (${code}): ${filePath}`,
      };
    }
    const relative = path.relative(this.#realWorkingDir, real);
    if (relative === '..' || relative.startsWith('../') || path.isAbsolute(relative)) {
      const where = real === filePath ? filePath : `${filePath}, which resolves to ${real},`;
      return {
        allowed: false,
        reason: `is refused: ${where} is outside the working dir ${this.workingDir}`,
      };
    }
    const canonical = pathToFileURL(path.join(this.workingDir, relative));
    // A directory keeps its trailing slash (Chromium lists it), the query and fragment stay.
    if (url.pathname.endsWith('/') && !canonical.pathname.endsWith('/')) canonical.pathname += '/';
    canonical.search = url.search;
    canonical.hash = url.hash;
    return { allowed: true, url: canonical.href };
  }
}

function parseUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

function isAbout(url: URL, pages: readonly string[]): boolean {
  return url.protocol === 'about:' && pages.includes(url.pathname);
}
