import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as protocol from '../index.js';
import { wireSchemas } from './wire-schemas.js';

/** Exported schemas of models/ that are parts of a model, not models of their own. */
const MODEL_PARTS = new Set([
  'bashEventSortOrderSchema',
  'gitChangeStatusSchema',
  'initStateSchema',
  'runtimePluginStateSchema',
  'securityRiskSchema',
  'terminationReasonSchema',
]);

const modelsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'models');

/** Every zod schema exported by a file of src/models, by export name. */
async function modelSchemas(): Promise<Map<string, z.ZodType>> {
  const schemas = new Map<string, z.ZodType>();
  const files = readdirSync(modelsDir).filter((file) => !file.endsWith('.test.ts'));
  for (const file of files) {
    const module = (await import(path.join(modelsDir, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (value instanceof z.ZodType) schemas.set(name, value);
    }
  }
  return schemas;
}

describe('wireSchemas', () => {
  it('registers every wire model of src/models, and the package exports it', async () => {
    const registered = new Set<z.ZodType>(Object.values(wireSchemas).map((entry) => entry.schema));
    const exported = protocol as Record<string, unknown>;
    const schemas = await modelSchemas();
    expect(schemas.size).toBeGreaterThan(15);
    for (const [name, schema] of schemas) {
      expect(exported[name], `${name} is exported from src/index.ts`).toBe(schema);
      if (MODEL_PARTS.has(name)) continue;
      expect(registered.has(schema), `${name} is registered in wireSchemas`).toBe(true);
    }
  });

  it('lists each model part that really is a model file export', async () => {
    const schemas = await modelSchemas();
    for (const name of MODEL_PARTS) expect(schemas.has(name), name).toBe(true);
  });
});
