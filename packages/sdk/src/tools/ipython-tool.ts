import { MAX_IPYTHON_CODE_CHARS } from '@agent-workspace/protocol';
import { z } from 'zod';
import { pluginToolCall } from './plugin-tool-call.js';
import { runtimePluginAvailability } from './runtime-plugin-availability.js';
import type { Tool, ToolAvailability, ToolContext, ToolObservation } from './tool.js';
import { truncateForModel } from './truncate-for-model.js';

/** LLM-facing name of {@link IPythonTool} (OpenHands' CodeAct `execute_ipython_cell`). */
export const IPYTHON_TOOL_NAME = 'execute_ipython_cell';
/** The runtime plugin {@link IPythonTool} acts through. */
export const IPYTHON_PLUGIN = 'python';

const DESCRIPTION = `Run a cell of Python code in an IPython environment.
* The assistant should define variables and import packages before using them.
* The variable defined in the IPython environment will not be available outside the IPython environment (e.g., in terminal).
* The kernel persists between calls: variables, imports and the working directory carry over until the kernel is restarted (the output then says its state is lost).
* The kernel starts in the workspace directory; files written there are visible to the other tools.`;

/** Arguments of {@link IPythonTool}, as OpenHands' `IPythonRunCellAction`. */
export const ipythonArgsSchema = z.object({
  code: z
    .string()
    .max(MAX_IPYTHON_CODE_CHARS)
    .describe('The Python code to execute. Supports magic commands like %pip.'),
});

/** Arguments of {@link IPythonTool}. */
export type IPythonArgs = z.infer<typeof ipythonArgsSchema>;

/**
 * OpenHands' `execute_ipython_cell`: one `run_ipython` action on the `python` runtime plugin's
 * persistent kernel, through the conversation's action executor (`ToolContext.actions`, else the
 * workspace when it is one). Available only where that executor announces the plugin. The
 * observation text is the cell's output (truncated for the model); `content` is
 * `{ code, observation }` with the wire observation.
 */
export class IPythonTool implements Tool<IPythonArgs> {
  readonly name = IPYTHON_TOOL_NAME;
  readonly specName = 'IPythonTool';
  readonly description = DESCRIPTION;
  readonly parameters = ipythonArgsSchema;
  readonly runtimePlugins = [IPYTHON_PLUGIN] as const;

  available(context: ToolContext): Promise<ToolAvailability> {
    return runtimePluginAvailability(context, IPYTHON_PLUGIN);
  }

  execute(args: IPythonArgs, context: ToolContext): Promise<ToolObservation> {
    return pluginToolCall({
      context,
      code: args.code,
      subject: 'Python',
      call: (actions) => actions.runIpython(args.code, { signal: context.signal }),
      observe: (observation) => {
        const images =
          observation.observation === 'run_ipython' ? observation.extras.image_urls : null;
        const note =
          images && images.length > 0 ? `\n[The cell produced ${images.length} image(s).]` : '';
        return {
          text: `${truncateForModel(observation.content)}${note}`,
          content: { code: args.code, observation },
          isError: observation.observation === 'error',
        };
      },
    });
  }
}
