import { styleText } from 'node:util';
import type { ConversationEventWire } from '@agent-workspace/protocol';

/** Options of {@link formatEvent}. */
export interface FormatEventOptions {
  /** Colour the labels (ANSI); plain text otherwise. */
  color: boolean;
  /** Lines of a tool's output shown before they are cut; default 12. */
  maxOutputLines?: number;
}

type Style = Parameters<typeof styleText>[0];

/**
 * One event as lines a person can follow: the user's and the agent's messages, each action
 * with its arguments, each observation's output (cut after a few lines), errors and status
 * changes. Events a reader does not need (e.g. full state snapshots) give no lines.
 */
export function formatEvent(event: ConversationEventWire, options: FormatEventOptions): string[] {
  const paint = (style: Style, text: string): string =>
    options.color ? styleText(style, text) : text;
  const maxLines = options.maxOutputLines ?? 12;
  switch (event.kind) {
    case 'MessageEvent': {
      const text = textOf(event.llm_message.content);
      const who = event.source === 'user' ? paint('cyan', 'user') : paint('green', 'agent');
      return [`${who}  ${text}`];
    }
    case 'ActionEvent': {
      const lines: string[] = [];
      const thought = textOf(event.thought);
      if (thought) lines.push(`${paint('green', 'agent')}  ${thought}`);
      lines.push(
        `${paint('yellow', `→ ${event.tool_name}`)}  ${describeArguments(event.tool_call.arguments)}`,
      );
      return lines;
    }
    case 'ObservationEvent': {
      const output = textOf(event.observation.content).split('\n');
      const shown = output.slice(0, maxLines);
      if (output.length > maxLines) shown.push(`… ${output.length - maxLines} more lines`);
      const label = event.observation.is_error ? paint('red', '← error') : paint('gray', '←');
      return shown.map(
        (line, index) => `${index === 0 ? label : ' '.repeat(label.length)}  ${line}`,
      );
    }
    case 'AgentErrorEvent':
      return [`${paint('red', `! ${event.tool_name}`)}  ${event.error}`];
    case 'ConversationStateUpdateEvent':
      return event.key === 'execution_status'
        ? [paint('gray', `status: ${String(event.value)}`)]
        : [];
    case 'ConversationErrorEvent':
      return [`${paint('red', `! ${event.code}`)}  ${event.detail}`];
    case 'UserRejectObservation':
      return [`${paint('red', `✗ ${event.tool_name}`)}  rejected: ${event.rejection_reason}`];
    case 'PauseEvent':
      return [paint('gray', 'paused')];
    case 'InterruptEvent':
      return [paint('gray', 'interrupted')];
    case 'CondensationRequest':
      return [];
    case 'Condensation':
      return [paint('gray', `condensed: ${event.forgotten_event_ids.length} events forgotten`)];
  }
}

/** The text parts of OpenHands message content. */
function textOf(content: ReadonlyArray<{ type: string; text?: string }>): string {
  return content
    .map((part) => (part.type === 'text' ? (part.text ?? '') : `[${part.type}]`))
    .join('')
    .trim();
}

/** A tool call's arguments on one line: `command=create path=/x/stats.js file_text=<9 lines>`. */
function describeArguments(json: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return json;
  }
  if (typeof parsed !== 'object' || parsed === null) return json;
  return Object.entries(parsed)
    .map(([name, value]) => {
      if (typeof value === 'string') {
        const lines = value.split('\n').length;
        return `${name}=${lines > 1 ? `<${lines} lines>` : JSON.stringify(value)}`;
      }
      return `${name}=${JSON.stringify(value)}`;
    })
    .join(' ');
}
