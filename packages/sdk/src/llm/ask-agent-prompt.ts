const OPENING =
  '<QUESTION>\nBased on the activity so far, answer the following question.\n\n## Question\n';
const CLOSING =
  '\n\n<IMPORTANT>\nThis is a question: do not call any tool, just answer it.\n</IMPORTANT>\n</QUESTION>';

/** The user message a side question is sent as (OpenHands' `ask_agent_template`, our words). */
export function askAgentPrompt(question: string): string {
  return `${OPENING}${question}${CLOSING}`;
}

/** The question of a message written by {@link askAgentPrompt}, or `undefined`. */
export function askAgentQuestionOf(text: string): string | undefined {
  if (!text.startsWith(OPENING) || !text.endsWith(CLOSING)) return undefined;
  return text.slice(OPENING.length, text.length - CLOSING.length);
}
