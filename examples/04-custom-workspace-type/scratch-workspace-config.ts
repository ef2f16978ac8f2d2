import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { z } from 'zod';

/** Where scratch directories go when the config names no `root`. */
export const DEFAULT_SCRATCH_ROOT = path.join(tmpdir(), 'agent-workspace-scratch');

/** Longest `setup` command accepted, in characters. */
export const MAX_SETUP_COMMAND_LENGTH = 4096;

/** Default time the `setup` command may run, in milliseconds. */
export const DEFAULT_SETUP_TIMEOUT_MS = 60_000;
/** Longest `setupTimeoutMs` accepted. */
export const MAX_SETUP_TIMEOUT_MS = 600_000;

/**
 * A single, harmless path segment: letters, digits, `.`, `_` and `-`, at most 64 characters,
 * starting with a letter or digit. So no `/`, no `.` or `..`, no hidden or option-like names.
 */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Options of a scratch workspace, every field validated; `kind` excluded. */
export const scratchWorkspaceOptionsSchema = z.strictObject({
  /** The directory's name under `root`; must not be in use. */
  name: z
    .string()
    .regex(
      SAFE_NAME,
      'must be one path segment of letters, digits, ".", "_" or "-" (at most 64), starting with a letter or digit',
    ),
  /** Absolute directory the scratch directory is created in (created when missing). */
  root: z
    .string()
    .refine((value) => path.isAbsolute(value), 'must be an absolute path')
    .refine((value) => !value.includes('\0'), 'must not contain NUL bytes')
    .default(DEFAULT_SCRATCH_ROOT),
  /** A command run in the fresh directory before the workspace is handed out (e.g. `git init`). */
  setup: z.string().trim().min(1).max(MAX_SETUP_COMMAND_LENGTH).optional(),
  /** How long `setup` may run. */
  setupTimeoutMs: z
    .number()
    .int()
    .positive()
    .max(MAX_SETUP_TIMEOUT_MS)
    .default(DEFAULT_SETUP_TIMEOUT_MS),
  /** Leave the directory in place on `close()` (for inspection). */
  keep: z.boolean().default(false),
});

/** JSON config of a scratch workspace for `createWorkspace({ kind: 'scratch', ... })`. */
export const scratchWorkspaceConfigSchema = scratchWorkspaceOptionsSchema.extend({
  kind: z.literal('scratch'),
});

/** Options accepted by `ScratchWorkspace.create()` (defaults not yet applied). */
export type ScratchWorkspaceOptions = z.input<typeof scratchWorkspaceOptionsSchema>;
/** Options after validation, defaults applied. */
export type ResolvedScratchWorkspaceOptions = z.output<typeof scratchWorkspaceOptionsSchema>;
/** Config accepted by `createWorkspace({ kind: 'scratch', ... })`. */
export type ScratchWorkspaceConfig = z.input<typeof scratchWorkspaceConfigSchema>;

/**
 * Validates `options` for callers that bypass `createWorkspace`. Failures are `INVALID_CONFIG`
 * errors naming each bad field, as `createWorkspace` reports them.
 */
export function parseScratchWorkspaceOptions(options: unknown): ResolvedScratchWorkspaceOptions {
  const parsed = scratchWorkspaceOptionsSchema.safeParse(options);
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.flatMap((issue) =>
    // An unknown key is reported on its parent; name the key itself.
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => [...issue.path, key].join('.'))
      : [issue.path.join('.') || '(options)'],
  );
  const issues = parsed.error.issues
    .map((issue) => `${issue.path.join('.') || '(options)'}: ${issue.message}`)
    .join('; ');
  throw new WorkspaceError({
    code: 'INVALID_CONFIG',
    message: `invalid scratch workspace options: ${issues}`,
    cause: parsed.error,
    details: { kind: 'scratch', fields },
  });
}
