import { z } from 'zod';

/** A JSON Schema document as zod produces it. */
export type JsonSchema = z.core.JSONSchema.BaseSchema;

/** Options of {@link toJsonSchema}. */
export interface JsonSchemaOptions {
  /**
   * Which side of the schema to describe: `input` for what a server accepts (defaults make
   * fields optional), `output` for what it emits (defaults make fields required). Default `output`.
   */
  io?: 'input' | 'output' | undefined;
  /** JSON Schema dialect; `draft-2020-12` (what OpenAPI 3.1 uses) by default. */
  target?: 'draft-2020-12' | 'draft-07' | 'openapi-3.0' | undefined;
}

/** Converts a wire schema to JSON Schema, e.g. for an OpenAPI document. */
export function toJsonSchema(schema: z.ZodType, options: JsonSchemaOptions = {}): JsonSchema {
  return z.toJSONSchema(schema, {
    io: options.io ?? 'output',
    target: options.target ?? 'draft-2020-12',
  });
}
