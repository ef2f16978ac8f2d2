import { describe, expect, it } from 'vitest';
import { executeBashRequestWireSchema } from '../models/execute-bash-request.js';
import { toJsonSchema } from './to-json-schema.js';
import { wireSchemas } from './wire-schemas.js';

describe('toJsonSchema', () => {
  it.each(Object.entries(wireSchemas))('produces a JSON Schema for %s', (_name, entry) => {
    const schema = toJsonSchema(entry.schema, { io: entry.io });
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.type === 'object' || Array.isArray(schema.oneOf)).toBe(true);
  });

  it('makes defaulted fields optional on input and required on output', () => {
    expect(toJsonSchema(executeBashRequestWireSchema, { io: 'input' }).required).toEqual([
      'command',
    ]);
    expect(toJsonSchema(executeBashRequestWireSchema).required).toEqual(['command', 'timeout']);
  });

  it('describes the bash events as a union with kind constants and hex id patterns', () => {
    const schema = toJsonSchema(wireSchemas.BashEvent.schema);
    const variants = (schema.oneOf ?? []) as {
      properties: Record<string, { const?: string; pattern?: string }>;
    }[];
    expect(variants.map((variant) => variant.properties.kind?.const)).toEqual([
      'BashCommand',
      'BashOutput',
      'BashError',
    ]);
    expect(variants[1]?.properties.command_id?.pattern).toBe('^[0-9a-f]{32}$');
  });

  it('supports the OpenAPI 3.0 dialect', () => {
    const schema = toJsonSchema(wireSchemas.BashOutput.schema, { target: 'openapi-3.0' });
    expect(schema.$schema).toBeUndefined();
    expect(JSON.stringify(schema)).toContain('"nullable":true');
  });
});
