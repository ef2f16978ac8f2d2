/**
 * Test helpers for code that talks to an agent-server: a real server on loopback in a temporary
 * working directory.
 *
 * @packageDocumentation
 */
export { startTestServer, type TestServer } from './start-test-server.js';
