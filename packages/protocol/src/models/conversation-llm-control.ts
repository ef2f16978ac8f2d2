import { z } from 'zod';

/**
 * Longest `question` of `POST …/ask_agent`, in characters (OpenHands has no bound). The
 * question goes to the model with the whole transcript, so a long one costs tokens and may
 * overflow its context.
 */
export const MAX_ASK_AGENT_QUESTION_LENGTH = 20_000;

/** Wire shape of OpenHands' `AskAgentRequest`: a side question for the agent. */
export const askAgentRequestWireSchema = z.looseObject({
  question: z.string().min(1).max(MAX_ASK_AGENT_QUESTION_LENGTH),
});

/** Wire JSON of an ask-agent request. */
export type AskAgentRequestWire = z.infer<typeof askAgentRequestWireSchema>;

/** Wire shape of OpenHands' `AskAgentResponse`. */
export const askAgentResponseWireSchema = z.object({ response: z.string() });

/** Wire JSON of an ask-agent answer. */
export type AskAgentResponseWire = z.infer<typeof askAgentResponseWireSchema>;

/**
 * Wire shape of `POST …/switch_llm`: `{"llm": LLM}`, the model's JSON as in a start request's
 * `agent.llm` (an `LLM` config, or a `ScriptedLLM`'s with `kind: "ScriptedLLM"`); the server
 * validates it as it validates a start request's.
 */
export const switchLlmRequestWireSchema = z.looseObject({
  llm: z.looseObject({ kind: z.string().optional() }),
});

/** Wire JSON of a switch-LLM request. */
export type SwitchLlmRequestWire = z.infer<typeof switchLlmRequestWireSchema>;
