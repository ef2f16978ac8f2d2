// The wire contract: each concept's schemas in its own barrel (`*-models.ts`), the errors and
// schema helpers here. Everything that needs no schema (routes, headers, codes, limits) is also in
// the zod-free entry, `constants`.
export * from './actions/action-models.js';
export * from './constants.js';
export { execErrorCodeSchema } from './errors/exec-error-code.js';
export { httpErrorBody } from './errors/http-error-body.js';
export {
  type InternalServerErrorBody,
  internalServerErrorBody,
  internalServerErrorBodySchema,
} from './errors/internal-server-error-body.js';
export {
  type ValidationErrorBody,
  type ValidationLocation,
  validationErrorBody,
} from './errors/validation-error-body.js';
export { workspaceErrorCodeSchema } from './errors/workspace-error-code.js';
export { hexIdInputSchema, newHexId, normalizeHexId } from './ids/hex-id.js';
export {
  type JsonSchema,
  type JsonSchemaOptions,
  toJsonSchema,
} from './json-schema/to-json-schema.js';
export { type WireSchemaEntry, wireSchemas } from './json-schema/wire-schemas.js';
export {
  clientPathSchema,
  commandEnvironmentSchema,
  commandTextSchema,
  commandTimeoutSchema,
  environmentNameSchema,
} from './limits/command-input-schemas.js';
export * from './models/bash-models.js';
export * from './models/conversation-models.js';
export * from './models/file-models.js';
export * from './models/server-models.js';
export * from './runtime-api/runtime-api-models.js';
export {
  formatWireTimestamp,
  normalizeWireTimestamp,
  wireTimestampSchema,
} from './time/wire-timestamp.js';
