import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { createLazyApp, handToLazyApp } from '../app/hand-to-lazy-app.js';

/** Set to `true` by the single-file bundle build (esbuild `define`); undeclared elsewhere. */
declare const AGENT_SERVER_BUNDLE: boolean | undefined;

/** Hashed assets never change under one name: cache them for a year. */
const HASHED_ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * The page's Content-Security-Policy: its own scripts, styles and sockets only (`'self'` covers
 * same-origin `ws:`/`wss:`), inline styles for the terminal's theme, no framing, no plugins.
 */
export const UI_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The built web page's folder (`dist/` of the installed `@agent-workspace/ui`, or the `ui` folder
 * the single-file bundle build copies next to it), or `undefined` when it holds no `index.html`.
 */
export function uiDistDir(): string | undefined {
  const dir =
    typeof AGENT_SERVER_BUNDLE !== 'undefined' && AGENT_SERVER_BUNDLE
      ? fileURLToPath(new URL('./ui/', import.meta.url))
      : join(
          dirname(createRequire(import.meta.url).resolve('@agent-workspace/ui/package.json')),
          'dist',
        );
  return existsSync(join(dir, 'index.html')) ? dir : undefined;
}

/**
 * Serves the web page at `/` from `root`, through an app built on the first page request rather
 * than at start-up (`@fastify/static` and its modules load then). Only what `root` holds at
 * start-up is routed to it: `/`, each top-level file, and the paths under each top-level folder.
 * That app has one route per file it finds (no wildcard, so no path outside `root` and no `/api`
 * path is ever looked up), no directory listing, no dotfiles; `index.html` is revalidated on every
 * load, hashed `assets/` cached for a year; every file goes out with
 * {@link UI_CONTENT_SECURITY_POLICY}, `nosniff` and no referrer.
 */
export function registerUiRoutes(app: FastifyInstance, root: string): void {
  const serve = handToLazyApp({ owner: app, build: () => buildUiApp(root) });
  const hidden = { exposeHeadRoute: true, schema: { hide: true } };
  app.get('/', hidden, serve);
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    if (entry.isFile()) app.get(`/${entry.name}`, hidden, serve);
    else if (entry.isDirectory()) app.get(`/${entry.name}/*`, hidden, serve);
  }
}

async function buildUiApp(root: string): Promise<FastifyInstance> {
  const { default: fastifyStatic } = await import('@fastify/static');
  const server = createLazyApp();
  await server.register(fastifyStatic, {
    root,
    prefix: '/',
    wildcard: false,
    index: 'index.html',
    list: false,
    dotfiles: 'deny',
    decorateReply: false,
    cacheControl: false,
    setHeaders: (response, path) => {
      response.setHeader('content-security-policy', UI_CONTENT_SECURITY_POLICY);
      response.setHeader('x-content-type-options', 'nosniff');
      response.setHeader('referrer-policy', 'no-referrer');
      response.setHeader(
        'cache-control',
        path.startsWith(join(root, 'assets')) ? HASHED_ASSET_CACHE_CONTROL : 'no-cache',
      );
    },
  });
  await server.ready();
  return server;
}
