import { AGENT_SERVER_ROUTES, TOOL_NAMES } from '@agent-workspace/protocol';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';

const toolNamesSchema = z.array(z.string());

/**
 * Registers OpenHands' `GET /api/tools/`: the tool names a conversation's agent may list in
 * `tools` (protocol's `TOOL_NAMES`, OpenHands' class-style names such as `TerminalTool`; `/server_info`
 * lists the same as `usable_tools`), as
 * OpenHands lists its registry. `BrowserTool` and `IPythonTool` are listed even when the server
 * runs no runtime plugins: a conversation then leaves them out of what it offers the model.
 */
export function registerToolRoutes(app: FastifyInstance): void {
  app.get(
    AGENT_SERVER_ROUTES.tools,
    { schema: { tags: ['Tools'], response: { 200: toolNamesSchema } } },
    async () => [...TOOL_NAMES],
  );
}
