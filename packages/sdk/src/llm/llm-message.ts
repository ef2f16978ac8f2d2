/** Who speaks in a conversation with a model. */
export type LLMRole = 'system' | 'user' | 'assistant' | 'tool';

/** A call of one tool the model asked for. */
export interface ToolCall {
  /** The model's id of the call, echoed by the tool's answer. */
  id: string;
  /** The tool's LLM-facing name, e.g. `terminal`. */
  name: string;
  /** The arguments as the model wrote them: JSON text, possibly malformed. */
  arguments: string;
}

/** One message of the transcript sent to a model. */
export interface LLMMessage {
  role: LLMRole;
  /** Text content; empty for an assistant message that only calls tools. */
  content: string;
  /** Tool calls of an assistant message. */
  toolCalls?: ToolCall[] | undefined;
  /** For a `tool` message: the call it answers, and the tool's name. */
  toolCallId?: string | undefined;
  toolName?: string | undefined;
}
