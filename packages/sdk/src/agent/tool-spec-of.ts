import { z } from 'zod';
import type { ToolSpec } from '../llm/language-model.js';
import type { Tool } from '../tools/tool.js';

const specs = new WeakMap<Tool, ToolSpec>();

/**
 * A tool as the model sees it: name, description and the JSON Schema of its zod arguments
 * schema (the input side, so fields with defaults are optional). Cached per tool instance.
 */
export function toolSpecOf(tool: Tool): ToolSpec {
  let spec = specs.get(tool);
  if (spec === undefined) {
    const { $schema: _, ...parameters } = z.toJSONSchema(tool.parameters, {
      io: 'input',
      unrepresentable: 'any',
    }) as Record<string, unknown>;
    spec = { name: tool.name, description: tool.description, parameters };
    specs.set(tool, spec);
  }
  return spec;
}
