import { z } from 'zod';
import type { Tool, ToolObservation } from './tool.js';
import { truncateForModel } from './truncate-for-model.js';

/** LLM-facing name of {@link FinishTool}: a successful call of it ends the run. */
export const FINISH_TOOL_NAME = 'finish';

const DESCRIPTION = `Signals the completion of the current task or conversation.

Use this tool when:
- You have successfully completed the user's requested task
- You cannot proceed further due to technical limitations or missing information

The message should include:
- A clear summary of actions taken and their results
- Any next steps for the user
- Explanation if you're unable to complete the task
- Any follow-up questions if more information is needed`;

/** Arguments of {@link FinishTool}, as OpenHands' `FinishAction`. */
export const finishArgsSchema = z.object({
  message: z.string().describe('Final message to send to the user.'),
});

/** Arguments of {@link FinishTool}. */
export type FinishArgs = z.infer<typeof finishArgsSchema>;

/**
 * OpenHands' `finish`: the observation echoes `message`; the agent loop ends the run when this
 * tool ({@link FINISH_TOOL_NAME}, or {@link isFinishTool}) succeeds. Always available.
 */
export class FinishTool implements Tool<FinishArgs> {
  readonly name = FINISH_TOOL_NAME;
  readonly description = DESCRIPTION;
  readonly parameters = finishArgsSchema;

  async execute(args: FinishArgs): Promise<ToolObservation> {
    return {
      text: truncateForModel(args.message),
      content: { message: args.message },
      isError: false,
    };
  }
}

/** True for the tool whose successful call ends a run. */
export function isFinishTool(tool: { name: string }): boolean {
  return tool.name === FINISH_TOOL_NAME;
}
