/**
 * The HTTP building blocks the agent-server is made of, for other agent-workspace servers (the
 * Runtime API server in `@agent-workspace/remote-api`): one Fastify base with the same limits,
 * logs and error envelope, the constant-time key check, OpenAPI components from wire schemas,
 * and the command-line pieces (flag parsing, usage errors, shutdown on signals).
 *
 * @packageDocumentation
 */

export { logLevelSchema } from '../agent-server-options.js';
export { type CreateHttpAppOptions, createHttpApp, type HttpApp } from '../app/create-http-app.js';
export { HttpError } from '../app/http-error.js';
export { createSessionKeyChecker, type SessionKeyCheckerOptions } from '../app/session-auth.js';
export {
  type SchemaComponents,
  wireSchemaComponents,
} from '../app/wire-schema-components.js';
export { CliUsageError, decimalFlag, indexedEnv, integerFlag, nonEmpty } from '../cli/cli-flags.js';
export {
  type CloseOnSignalsOptions,
  closeOnSignals,
  type ShutdownLogger,
} from '../cli/close-on-signals.js';
