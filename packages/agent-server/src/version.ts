import { createRequire } from 'node:module';

/** Version of this package, read from its package.json. */
export const VERSION: string = (
  createRequire(import.meta.url)('../package.json') as { version: string }
).version;
