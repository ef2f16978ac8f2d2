import { z } from 'zod';
import { clientPathSchema, commandTextSchema } from '../limits/command-input-schemas.js';
import {
  MAX_ACTION_FILE_TEXT_CHARS,
  MAX_BROWSE_URL_CHARS,
  MAX_BROWSER_ACTIONS_CHARS,
  MAX_IPYTHON_CODE_CHARS,
} from './action-limits.js';

// Every args schema is lenient: OpenHands clients send fields of theirs we do not use
// (`thought`, `security_risk`, `confirmation_state`, ...); they are accepted and ignored.

const lineNumberSchema = z.number().int();

/** Args of `run` (OpenHands' `CmdRunAction`). `is_input` (typing into a running command) is refused. */
export const cmdRunArgsSchema = z.looseObject({
  command: commandTextSchema,
  is_input: z.boolean().default(false),
  cwd: clientPathSchema.nullish(),
  blocking: z.boolean().default(false),
  hidden: z.boolean().default(false),
});

/**
 * Args of `read` (`FileReadAction`): lines `start` (0-based) up to `end` (exclusive, `-1` the
 * last); with `impl_source: "oh_aci"` the file editor's `view`, 1-based `view_range` inclusive.
 */
export const fileReadArgsSchema = z.looseObject({
  path: clientPathSchema,
  start: lineNumberSchema.min(0).default(0),
  end: lineNumberSchema.min(-1).default(-1),
  impl_source: z.enum(['default', 'oh_aci']).default('default'),
  view_range: z.tuple([lineNumberSchema.min(1), lineNumberSchema.min(-1)]).nullish(),
});

/**
 * Args of `write` (`FileWriteAction`): `content` replaces lines `start` up to `end` of an existing
 * file (`end: -1` through the last line) or becomes a new file.
 */
export const fileWriteArgsSchema = z.looseObject({
  path: clientPathSchema,
  content: z.string().max(MAX_ACTION_FILE_TEXT_CHARS),
  start: lineNumberSchema.min(0).default(0),
  end: lineNumberSchema.min(-1).default(-1),
});

/** Args of `edit` (`FileEditAction` with `impl_source: "oh_aci"`): the file editor's commands. */
export const fileEditArgsSchema = z.looseObject({
  path: clientPathSchema,
  command: z.enum(['view', 'create', 'str_replace', 'insert', 'undo_edit']),
  file_text: z.string().max(MAX_ACTION_FILE_TEXT_CHARS).nullish(),
  old_str: z.string().max(MAX_ACTION_FILE_TEXT_CHARS).nullish(),
  new_str: z.string().max(MAX_ACTION_FILE_TEXT_CHARS).nullish(),
  insert_line: lineNumberSchema.min(0).nullish(),
  view_range: z.tuple([lineNumberSchema.min(1), lineNumberSchema.min(-1)]).nullish(),
  impl_source: z
    .literal('oh_aci', {
      error: 'must be "oh_aci": LLM-drafted edits ("default") are not run by this server',
    })
    .default('oh_aci'),
});

/** Args of `run_ipython` (`IPythonRunCellAction`). */
export const ipythonRunCellArgsSchema = z.looseObject({
  code: z.string().max(MAX_IPYTHON_CODE_CHARS),
  include_extra: z.boolean().default(true),
});

/** Args of `browse` (`BrowseURLAction`): an `http(s)`, `file` or `about:` URL. */
export const browseUrlArgsSchema = z.looseObject({
  url: z
    .string()
    .min(1)
    .max(MAX_BROWSE_URL_CHARS)
    .refine((url) => URL.canParse(url), 'must be an absolute URL'),
  return_axtree: z.boolean().default(false),
});

/**
 * Args of `browse_interactive` (`BrowseInteractiveAction`): BrowserGym action calls, one per line,
 * such as `goto("https://...")`, `click("12")`, `fill("7", "text")`, `scroll(0, 400)`, `go_back()`.
 */
export const browseInteractiveArgsSchema = z.looseObject({
  browser_actions: z.string().min(1).max(MAX_BROWSER_ACTIONS_CHARS),
  browsergym_send_msg_to_user: z.string().default(''),
  return_axtree: z.boolean().default(false),
});

/** The args schema of each action name this protocol defines. */
export const ACTION_ARGS_SCHEMAS = {
  run: cmdRunArgsSchema,
  read: fileReadArgsSchema,
  write: fileWriteArgsSchema,
  edit: fileEditArgsSchema,
  run_ipython: ipythonRunCellArgsSchema,
  browse: browseUrlArgsSchema,
  browse_interactive: browseInteractiveArgsSchema,
} as const;

/** An action name of {@link ACTION_ARGS_SCHEMAS}. */
export type ActionName = keyof typeof ACTION_ARGS_SCHEMAS;

/** Args of `run` after defaults. */
export type CmdRunArgs = z.infer<typeof cmdRunArgsSchema>;
/** Args of `read` after defaults. */
export type FileReadArgs = z.infer<typeof fileReadArgsSchema>;
/** Args of `write` after defaults. */
export type FileWriteArgs = z.infer<typeof fileWriteArgsSchema>;
/** Args of `edit` after defaults. */
export type FileEditArgs = z.infer<typeof fileEditArgsSchema>;
/** Args of `run_ipython` after defaults. */
export type IPythonRunCellArgs = z.infer<typeof ipythonRunCellArgsSchema>;
/** Args of `browse` after defaults. */
export type BrowseUrlArgs = z.infer<typeof browseUrlArgsSchema>;
/** Args of `browse_interactive` after defaults. */
export type BrowseInteractiveArgs = z.infer<typeof browseInteractiveArgsSchema>;
