/**
 * Test helpers for code that talks to an agent-server: a real server on loopback in a temporary
 * working directory, JSON requests with a session key, and raw HTTP/1.1 exchanges over a socket for attacking a server with bytes
 * no HTTP client would send.
 *
 * @packageDocumentation
 */

export {
  openSocket,
  parseResponse,
  type RawExchange,
  type RawExchangeOptions,
  type RawResponse,
  rawExchange,
  readExchange,
  requestHead,
} from './raw-http.js';
export { type SessionApi, sessionApi } from './session-api.js';
export { startTestServer, type TestServer } from './start-test-server.js';
