/**
 * Entry of the single-file bundle (`dist/bundle/agent-server.cjs`): CommonJS, so its launcher
 * can compile it with a V8 code cache (Node 20 caches no ES module code).
 */
export { type RunCliOptions, runCli } from '../cli/run-cli.js';
export { type PrimeServerOptions, primeServer } from './prime-server.js';
