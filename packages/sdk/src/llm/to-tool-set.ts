import { type JSONSchema7, jsonSchema, type ToolSet, tool } from 'ai';
import type { ToolSpec } from './language-model.js';
import { LLMError } from './llm-error.js';

/** Tool specs as the AI SDK's tool set (JSON Schema, never executed by it); `undefined` for none. */
export function toToolSet(specs: readonly ToolSpec[]): ToolSet | undefined {
  if (specs.length === 0) return undefined;
  const tools: ToolSet = {};
  for (const [index, spec] of specs.entries()) {
    if (Object.hasOwn(tools, spec.name)) {
      throw new LLMError({
        code: 'INVALID_ARGUMENT',
        message: `tools[${index}].name "${spec.name}" is given twice`,
        details: { field: `tools[${index}].name` },
      });
    }
    tools[spec.name] = tool({
      description: spec.description,
      inputSchema: jsonSchema(spec.parameters as JSONSchema7),
    });
  }
  return tools;
}
