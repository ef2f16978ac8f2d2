import { z } from 'zod';

/** What the model is told `file_editor` does (OpenHands' wording). */
export const FILE_EDITOR_DESCRIPTION = `Custom editing tool for viewing, creating and editing files in plain-text format
* State is persistent across command calls and discussions with the user
* If \`path\` is a text file, \`view\` displays the result of applying \`cat -n\`. If \`path\` is a directory, \`view\` lists non-hidden files and directories up to 2 levels deep
* The \`create\` command cannot be used if the specified \`path\` already exists as a file
* If a \`command\` generates a long output, it will be truncated and marked with \`<response clipped>\`
* The \`undo_edit\` command will revert the last edit made to the file at \`path\`
* This tool can be used for creating and editing files in plain-text format (UTF-8).


Before using this tool:
1. Use the view tool to understand the file's contents and context
2. Verify the directory path is correct (only applicable when creating new files):
   - Use the view tool to verify the parent directory exists and is the correct location

When making edits:
   - Ensure the edit results in idiomatic, correct code
   - Do not leave the code in a broken state
   - Always use absolute file paths (starting with /)

CRITICAL REQUIREMENTS FOR USING THIS TOOL:

1. EXACT MATCHING: The \`old_str\` parameter must match EXACTLY one or more consecutive lines from the file, including all whitespace and indentation. The tool will fail if \`old_str\` matches multiple locations or doesn't match exactly with the file content.

2. UNIQUENESS: The \`old_str\` must uniquely identify a single instance in the file:
   - Include sufficient context before and after the change point (3-5 lines recommended)
   - If not unique, the replacement will not be performed

3. REPLACEMENT: The \`new_str\` parameter should contain the edited lines that replace the \`old_str\`. Both strings must be different.

Remember: when making multiple file edits in a row to the same file, you should prefer to send all edits in a single message with multiple calls to this tool, rather than multiple messages with a single call each.`;

/** Arguments of {@link FileEditorTool}, as OpenHands' `FileEditorAction` (`str_replace_editor`). */
export const fileEditorArgsSchema = z.object({
  command: z
    .enum(['view', 'create', 'str_replace', 'insert', 'undo_edit'])
    .describe(
      'The commands to run. Allowed options are: `view`, `create`, `str_replace`, `insert`, `undo_edit`.',
    ),
  path: z.string().describe('Absolute path to file or directory.'),
  file_text: z
    .string()
    .nullish()
    .describe(
      'Required parameter of `create` command, with the content of the file to be created.',
    ),
  old_str: z
    .string()
    .nullish()
    .describe(
      'Required parameter of `str_replace` command containing the string in `path` to replace.',
    ),
  new_str: z
    .string()
    .nullish()
    .describe(
      'Optional parameter of `str_replace` command containing the new string (if not given, no string will be added). Required parameter of `insert` command containing the string to insert.',
    ),
  insert_line: z
    .number()
    .int()
    .min(0)
    .nullish()
    .describe(
      'Required parameter of `insert` command. The `new_str` will be inserted AFTER the line `insert_line` of `path`.',
    ),
  view_range: z
    .array(z.number().int())
    .nullish()
    .describe(
      'Optional parameter of `view` command when `path` points to a file. If none is given, the full file is shown. If provided, the file will be shown in the indicated line number range, e.g. [11, 12] will show lines 11 and 12. Indexing at 1 to start. Setting `[start_line, -1]` shows all lines from `start_line` to the end of the file.',
    ),
});

/** Arguments of {@link FileEditorTool}. */
export type FileEditorArgs = z.infer<typeof fileEditorArgsSchema>;
