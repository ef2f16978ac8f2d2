/**
 * Test helpers for suites that need a Docker engine.
 *
 * @packageDocumentation
 */
export { requireDockerEngine } from './require-docker-engine.js';
