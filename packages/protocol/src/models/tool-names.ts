/**
 * The tool names an agent on our server can be given, as OpenHands' class-style spec names
 * (`tools: [{ "name": "TerminalTool" }]` in a start-conversation request). `GET /api/tools/`
 * and `/server_info`'s `usable_tools` list them; the SDK's registry builds them. `BrowserTool`
 * and `IPythonTool` act through runtime plugins and are offered to the model only where the
 * conversation's action executor announces them.
 */
export const TOOL_NAMES = [
  'TerminalTool',
  'FileEditorTool',
  'TaskTrackerTool',
  'BrowserTool',
  'IPythonTool',
  'FinishTool',
] as const;

/** A spec name of {@link TOOL_NAMES}. */
export type ToolName = (typeof TOOL_NAMES)[number];
