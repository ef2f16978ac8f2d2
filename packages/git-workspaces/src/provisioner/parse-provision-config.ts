import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { z } from 'zod';
import { runGit } from '../internal/run-git.js';
import { SAFE_SEGMENT } from '../internal/tree-layout.js';
import type { ProvisionConfig } from './workspace-provisioner.js';

const SEGMENT_MESSAGE =
  'must be one path segment of letters, digits, ".", "_" or "-" (at most 100), starting with a letter or digit';

/** A path relative to the project that stays inside it. */
const relativeInside = z
  .string()
  .min(1)
  .refine((value) => !value.includes('\0'), 'must not contain NUL bytes')
  .refine((value) => !path.posix.isAbsolute(value), 'must be relative to the project')
  .refine((value) => {
    const normal = path.posix.normalize(value);
    return normal !== '.' && normal !== '..' && !normal.startsWith('../') && normal !== '.git';
  }, 'must name a path inside the project (not ".", ".git" or above it)');

/** The `project` of a {@link ProvisionConfig}. */
export const projectConfigSchema = z.strictObject({
  path: z
    .string()
    .min(1)
    .refine((value) => path.isAbsolute(value), 'must be an absolute path')
    .refine((value) => !value.includes('\0'), 'must not contain NUL bytes'),
  defaultBranch: z.string().min(1),
  symlinks: z.array(relativeInside).optional(),
  postCreate: z.array(z.string().trim().min(1)).optional(),
});

/** Shape of a {@link ProvisionConfig} (branch names are checked by git afterwards). */
export const provisionConfigSchema = z.strictObject({
  projectId: z.string().regex(SAFE_SEGMENT, SEGMENT_MESSAGE),
  project: projectConfigSchema,
  sessionId: z.string().regex(SAFE_SEGMENT, SEGMENT_MESSAGE),
  branch: z.string().min(1),
});

/** Throws the `INVALID_CONFIG` error of a failed zod parse, naming each field. */
export function invalidConfig(what: string, error: z.ZodError): never {
  const fields = error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => [...issue.path, key].join('.'))
      : [issue.path.join('.') || '(config)'],
  );
  const issues = error.issues
    .map((issue) => `${issue.path.join('.') || '(config)'}: ${issue.message}`)
    .join('; ');
  throw new WorkspaceError({
    code: 'INVALID_CONFIG',
    message: `invalid ${what}: ${issues}`,
    cause: error,
    details: { fields },
  });
}

/**
 * Checks a branch name with `git check-ref-format --branch`; rejects with `INVALID_CONFIG`
 * naming `field` when git refuses it (or it starts with `-`).
 */
export async function assertBranchName(
  branch: string,
  field: string,
  signal?: AbortSignal,
): Promise<void> {
  const refused = (reason: string) =>
    new WorkspaceError({
      code: 'INVALID_CONFIG',
      message: `${field} ${JSON.stringify(branch)} is not a valid branch name: ${reason}`,
      details: { fields: [field], field },
    });
  if (branch.startsWith('-') || branch.startsWith('@'))
    throw refused('must not start with "-" or "@"');
  const result = await runGit(['check-ref-format', '--branch', branch], { cwd: tmpdir(), signal });
  if (result.exitCode !== 0)
    throw refused(result.stderr.trim() || 'refused by git check-ref-format');
}

/**
 * Validates a {@link ProvisionConfig}: shape with zod, then both branch names with git.
 * Rejects with `INVALID_CONFIG`; `details.fields` names every bad field.
 */
export async function parseProvisionConfig(
  config: unknown,
  signal?: AbortSignal,
): Promise<ProvisionConfig> {
  const parsed = provisionConfigSchema.safeParse(config);
  if (!parsed.success) invalidConfig('provision config', parsed.error);
  await assertBranchName(parsed.data.branch, 'branch', signal);
  await assertBranchName(parsed.data.project.defaultBranch, 'project.defaultBranch', signal);
  return {
    ...parsed.data,
    project: { ...parsed.data.project, path: path.resolve(parsed.data.project.path) },
  };
}
