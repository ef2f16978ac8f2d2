/**
 * Entry of the single-file bundle (`dist/bundle/agent-server.cjs`): CommonJS, so its launcher
 * can compile it with a V8 code cache (Node 20 caches no ES module code).
 */
// biome-ignore-all assist/source/organizeImports: the order of the exports is the order modules load in.
// First, so it loads before any module that builds a schema.
export { ZOD_JITLESS } from './zod-jitless.js';
export { type RunCliOptions, runCli } from '../cli/run-cli.js';
export { type PrimeServerOptions, primeServer } from './prime-server.js';
