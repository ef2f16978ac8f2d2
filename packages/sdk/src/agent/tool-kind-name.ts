/**
 * The OpenHands class name for a tool's spec, action or observation, from its LLM-facing name:
 * `terminal` gives `TerminalTool`, `TerminalAction`, `TerminalObservation`; `file_editor` gives
 * `FileEditorTool`, ... The same rule names a custom tool's kinds (`my_tool` → `MyToolAction`).
 */
export function toolKindName(toolName: string, suffix: 'Tool' | 'Action' | 'Observation'): string {
  const pascal = toolName
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
  return `${pascal}${suffix}`;
}

/** A tool's OpenHands spec name: its own `specName`, else `toolKindName(name, 'Tool')`. */
export function toolSpecName(tool: { name: string; specName?: string | undefined }): string {
  return tool.specName ?? toolKindName(tool.name, 'Tool');
}
