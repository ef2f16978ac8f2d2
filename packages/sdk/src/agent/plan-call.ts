import type { ActionEventWire, AgentErrorEventWire } from '@agent-workspace/protocol';
import { z } from 'zod';
import { newEventBase } from '../events/new-event-base.js';
import type { ToolCall } from '../llm/llm-message.js';
import type { Tool } from '../tools/tool.js';
import { toolKindName } from './tool-kind-name.js';

/** A tool call turned into an action: with its tool and arguments, or with why it is refused. */
export interface PlannedCall {
  /** The call's `ActionEvent` (`action: null` when refused). */
  action: ActionEventWire;
  /** The tool that runs it; absent when refused. */
  tool?: Tool | undefined;
  /** The arguments, parsed by the tool's schema. */
  args?: unknown;
  /** Why the call does not run (unknown tool, invalid arguments). */
  refusal?: string | undefined;
}

/** Turns one tool call into its `ActionEvent`, refusing an unknown tool or invalid arguments. */
export function planCall(
  call: ToolCall,
  tools: ReadonlyMap<string, Tool>,
  thought: string,
  responseId: string,
): PlannedCall {
  const base = {
    kind: 'ActionEvent' as const,
    ...newEventBase(),
    source: 'agent' as const,
    thought: thought === '' ? [] : [{ type: 'text' as const, text: thought }],
    tool_name: call.name,
    tool_call_id: call.id,
    tool_call: {
      id: call.id,
      name: call.name,
      arguments: call.arguments,
      origin: 'completion' as const,
    },
    llm_response_id: responseId,
  };
  const refuse = (refusal: string): PlannedCall => ({ action: { ...base, action: null }, refusal });
  const tool = tools.get(call.name);
  if (tool === undefined) {
    const available = [...tools.keys()].join(', ') || 'none';
    return refuse(`Tool '${call.name}' not found. Available: ${available}.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(call.arguments === '' ? '{}' : call.arguments);
  } catch (error) {
    return refuse(
      `The arguments of ${call.name} are not valid JSON (${(error as Error).message}). Call the tool again with a JSON object.`,
    );
  }
  const parsed = tool.parameters.safeParse(json);
  if (!parsed.success) {
    return refuse(
      `Invalid arguments for ${call.name}:\n${z.prettifyError(parsed.error)}\nCall the tool again with arguments that match its schema.`,
    );
  }
  const fields = isPlainObject(parsed.data) ? parsed.data : { value: parsed.data };
  return {
    action: { ...base, action: { ...fields, kind: toolKindName(tool.name, 'Action') } },
    tool,
    args: parsed.data,
  };
}

/**
 * Plans an action recorded earlier again (to run it after it was held for confirmation): its
 * tool and arguments come from its `tool_call`; the event itself is kept.
 */
export function replanAction(
  action: ActionEventWire,
  tools: ReadonlyMap<string, Tool>,
): PlannedCall {
  const plan = planCall(
    {
      id: action.tool_call.id,
      name: action.tool_call.name,
      arguments: action.tool_call.arguments,
    },
    tools,
    '',
    action.llm_response_id,
  );
  return { ...plan, action };
}

/** The `AgentErrorEvent` answering `action` with `error`. */
export function agentError(action: ActionEventWire, error: string): AgentErrorEventWire {
  return {
    kind: 'AgentErrorEvent',
    ...newEventBase(),
    source: 'agent',
    error,
    tool_name: action.tool_name,
    tool_call_id: action.tool_call_id,
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
