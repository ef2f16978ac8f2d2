import type { ConversationEventWire } from '@agent-workspace/protocol';
import { textOfContent } from '../events/text-of-content.js';
import { FINISH_TOOL_NAME } from '../tools/finish-tool.js';

/**
 * The agent's last word, as OpenHands' `agent_final_response`: the `message` of the latest
 * `finish` action or the text of the latest agent message, whichever came last; `''` if none.
 */
export function agentFinalResponse(events: Iterable<ConversationEventWire>): string {
  const list = [...events];
  for (let index = list.length - 1; index >= 0; index--) {
    const response = finalResponseOf(list[index]!);
    if (response !== undefined) return response;
  }
  return '';
}

/** The final response `event` gives when it is the latest that counts; `undefined` if none. */
export function finalResponseOf(event: ConversationEventWire): string | undefined {
  if (event.kind === 'ActionEvent' && event.tool_name === FINISH_TOOL_NAME) {
    const message = event.action?.message;
    if (typeof message === 'string') return message;
  }
  if (event.kind === 'MessageEvent' && event.source === 'agent') {
    return textOfContent(event.llm_message.content);
  }
  return undefined;
}
