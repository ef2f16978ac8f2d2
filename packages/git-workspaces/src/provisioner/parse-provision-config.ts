import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { z } from 'zod';
import { branchNameProblem } from '../internal/branch-name-problem.js';
import { inspectProject } from '../internal/inspect-project.js';
import { SAFE_SEGMENT } from '../internal/tree-layout.js';
import type { ProvisionConfig } from './workspace-provisioner.js';

const SEGMENT_MESSAGE =
  'must be one path segment of letters, digits, ".", "_" or "-" (at most 100), starting with a letter or digit';

/** A path relative to the project that stays inside it (and outside `.git`). */
export const relativeInsideSchema = z
  .string()
  .min(1)
  .refine((value) => !value.includes('\0'), 'must not contain NUL bytes')
  .refine((value) => !path.posix.isAbsolute(value), 'must be relative to the project')
  .refine((value) => {
    const normal = path.posix.normalize(value);
    return (
      normal !== '.' &&
      normal !== '..' &&
      !normal.startsWith('../') &&
      normal !== '.git' &&
      !normal.startsWith('.git/')
    );
  }, 'must name a path inside the project (not ".", ".git" or above it)');

/** A branch name git accepts (`git check-ref-format --branch`), not starting with `-` or `@`. */
export const branchNameSchema = z.string().superRefine((value, context) => {
  const problem = branchNameProblem(value);
  if (problem !== undefined) {
    context.addIssue({ code: 'custom', message: `is not a valid branch name: ${problem}` });
  }
});

/** The `project` of a {@link ProvisionConfig}. */
export const projectConfigSchema = z.strictObject({
  path: z
    .string()
    .min(1)
    .refine((value) => path.isAbsolute(value), 'must be an absolute path')
    .refine((value) => !value.includes('\0'), 'must not contain NUL bytes'),
  defaultBranch: branchNameSchema,
  symlinks: z.array(relativeInsideSchema).optional(),
  postCreate: z.array(z.string().trim().min(1)).optional(),
  fetch: z.boolean().optional(),
});

/** Shape of a {@link ProvisionConfig}, branch names included. */
export const provisionConfigSchema = z.strictObject({
  projectId: z.string().regex(SAFE_SEGMENT, SEGMENT_MESSAGE),
  project: projectConfigSchema,
  sessionId: z.string().regex(SAFE_SEGMENT, SEGMENT_MESSAGE),
  branch: branchNameSchema,
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
 * Validates a {@link ProvisionConfig}: its shape and branch names with zod, then that the
 * project is a git work tree ({@link inspectProject}). Rejects with `INVALID_CONFIG`;
 * `details.fields` names every bad field.
 */
export async function parseProvisionConfig(
  config: unknown,
  signal?: AbortSignal,
): Promise<ProvisionConfig> {
  const parsed = parseProvisionShape(config);
  await inspectProject(parsed.project.path, signal);
  return parsed;
}

/**
 * The shape and branch names of a {@link ProvisionConfig}, checked without starting git (paths
 * resolved). Throws `INVALID_CONFIG` naming each bad field.
 */
export function parseProvisionShape(config: unknown): ProvisionConfig {
  const parsed = provisionConfigSchema.safeParse(config);
  if (!parsed.success) invalidConfig('provision config', parsed.error);
  return {
    ...parsed.data,
    project: { ...parsed.data.project, path: path.resolve(parsed.data.project.path) },
  };
}
