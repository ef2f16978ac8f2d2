import { createHash } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { SAFE_SEGMENT } from '../internal/tree-layout.js';
import { invalidConfig, projectConfigSchema } from '../provisioner/parse-provision-config.js';

const SEGMENT_MESSAGE =
  'must be one path segment of letters, digits, ".", "_" or "-" (at most 100), starting with a letter or digit';

/** Options of a git workspace (`GitWorkspace.create`), every field validated. */
export const gitWorkspaceOptionsSchema = z.strictObject({
  /** `'worktree'` (a linked worktree of the project) or `'clone'` (a full clone). */
  kind: z.enum(['worktree', 'clone']),
  project: projectConfigSchema,
  /** Names the project under the managed root. Default: `<basename>-<hash of project.path>`. */
  projectId: z.string().regex(SAFE_SEGMENT, SEGMENT_MESSAGE).optional(),
  sessionId: z.string().regex(SAFE_SEGMENT, SEGMENT_MESSAGE),
  /** The new branch (or, with `restore`, the existing one). */
  branch: z.string().min(1),
  /** The managed root. Default `~/.agent-workspace/git-workspaces`. */
  root: z
    .string()
    .refine((value) => path.isAbsolute(value), 'must be an absolute path')
    .optional(),
  /** What `close()` does with the tree: `'destroy'` (default) or `'keep'`. */
  onClose: z.enum(['keep', 'destroy']).default('destroy'),
  /** Let `close()` destroy a tree that holds uncommitted work. Default `false`. */
  forceDestroy: z.boolean().default(false),
  /** Bring back the tree of the existing `branch` instead of creating a new branch. */
  restore: z.boolean().default(false),
  /** Time each post-create command may run, in milliseconds. Default 120 000. */
  postCreateTimeoutMs: z.number().int().positive().max(3_600_000).optional(),
  /** `'fail'` (default) or `'warn'`; see `runPostCreate`. */
  onPostCreateFailure: z.enum(['fail', 'warn']).default('fail'),
  /** Reap dead owners' clean trees when the root's provisioner starts. Default `true`. */
  reapOnStart: z.boolean().optional(),
  /** Variables merged over `process.env` for every command. */
  env: z.record(z.string(), z.string()).optional(),
  /** Cap on captured bytes per command stream. */
  maxOutputBytes: z.number().int().positive().optional(),
});

/** Options accepted by `GitWorkspace.create()` (defaults not yet applied). */
export type GitWorkspaceOptions = z.input<typeof gitWorkspaceOptionsSchema>;
/** Options after validation, defaults applied. */
export type ResolvedGitWorkspaceOptions = z.output<typeof gitWorkspaceOptionsSchema>;

/** Validates `options`; failures are `INVALID_CONFIG` errors naming each bad field. */
export function parseGitWorkspaceOptions(options: unknown): ResolvedGitWorkspaceOptions {
  const parsed = gitWorkspaceOptionsSchema.safeParse(options);
  if (!parsed.success) invalidConfig('git workspace options', parsed.error);
  return parsed.data;
}

/**
 * The default project id of a project path: its base name reduced to safe characters, a dash
 * and 8 hex digits of the SHA-256 of the absolute path (so two `app` folders differ).
 */
export function defaultProjectId(projectPath: string): string {
  const absolute = path.resolve(projectPath);
  const base = path
    .basename(absolute)
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '');
  const hash = createHash('sha256').update(absolute).digest('hex').slice(0, 8);
  return `${(base || 'project').slice(0, 80)}-${hash}`;
}
