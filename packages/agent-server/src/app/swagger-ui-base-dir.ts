import { fileURLToPath } from 'node:url';

/** Set to `true` by the single-file bundle build (esbuild `define`); undeclared elsewhere. */
declare const AGENT_SERVER_BUNDLE: boolean | undefined;

/**
 * Where @fastify/swagger-ui serves its assets from: in the single-file bundle, the `static`
 * folder the build copies next to it; otherwise `undefined`, i.e. the package's own folder.
 */
export function swaggerUiBaseDir(): string | undefined {
  return typeof AGENT_SERVER_BUNDLE !== 'undefined' && AGENT_SERVER_BUNDLE
    ? fileURLToPath(new URL('./static/', import.meta.url))
    : undefined;
}
