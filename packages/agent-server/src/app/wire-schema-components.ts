import { toJsonSchema, type WireSchemaEntry, wireSchemas } from '@agent-workspace/protocol';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';

/** The `components.schemas` of an OpenAPI document, without references. */
export type SchemaComponents = Record<
  string,
  Exclude<
    NonNullable<
      NonNullable<NonNullable<FastifyDynamicSwaggerOptions['openapi']>['components']>['schemas']
    >[string],
    { $ref: string }
  >
>;

/**
 * Wire models as OpenAPI 3.0 components, by name — by default every agent-server model of
 * `@agent-workspace/protocol`, so `/openapi.json` documents the events and frames no route body
 * shows (e.g. the websocket frames).
 */
export function wireSchemaComponents(
  schemas: Record<string, WireSchemaEntry> = wireSchemas,
): SchemaComponents {
  const components = Object.entries(schemas).map(([name, entry]) => [
    name,
    toJsonSchema(entry.schema, { io: entry.io, target: 'openapi-3.0' }),
  ]);
  // zod writes the OpenAPI 3.0 dialect; its JSON Schema type is merely wider than OpenAPI's.
  return Object.fromEntries(components) as SchemaComponents;
}
