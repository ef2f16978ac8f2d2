import { toJsonSchema, wireSchemas } from '@agent-workspace/protocol';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';

/** The `components.schemas` of an OpenAPI document, without references. */
type SchemaComponents = Record<
  string,
  Exclude<
    NonNullable<
      NonNullable<NonNullable<FastifyDynamicSwaggerOptions['openapi']>['components']>['schemas']
    >[string],
    { $ref: string }
  >
>;

/**
 * Every wire model of `@agent-workspace/protocol` as an OpenAPI 3.0 component, by its model
 * name, so `/openapi.json` documents the events and frames no route body shows (e.g. the
 * websocket frames).
 */
export function wireSchemaComponents(): SchemaComponents {
  const components = Object.entries(wireSchemas).map(([name, entry]) => [
    name,
    toJsonSchema(entry.schema, { io: entry.io, target: 'openapi-3.0' }),
  ]);
  // zod writes the OpenAPI 3.0 dialect; its JSON Schema type is merely wider than OpenAPI's.
  return Object.fromEntries(components) as SchemaComponents;
}
