import { lstat, mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { abortedError, LocalWorkspace, WorkspaceError } from '@agent-workspace/core';
import type { ProjectConfig } from '../provisioner/workspace-provisioner.js';

/** Default time each post-create command may run, in milliseconds. */
export const DEFAULT_POST_CREATE_TIMEOUT_MS = 120_000;
/** Most characters of output kept per step (the tail). */
export const POST_CREATE_OUTPUT_LIMIT = 8_192;

/** Options of the post-create step. */
export interface PostCreateOptions {
  /** Time each command may run. Default {@link DEFAULT_POST_CREATE_TIMEOUT_MS}. */
  timeoutMs?: number | undefined;
  /**
   * `'fail'` (default): a failed step rejects with `PROVISIONING_ERROR` and the tree is removed;
   * `'warn'`: the remaining steps still run and the failures are in the result.
   */
  onFailure?: 'fail' | 'warn' | undefined;
  /** Aborting kills the running command; the call rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
}

/** One step of the post-create run. */
export interface PostCreateStep {
  kind: 'symlink' | 'command';
  /** The symlink's relative path, or the command. */
  name: string;
  ok: boolean;
  /** True for a symlink whose target is missing in the project or whose path exists in the tree. */
  skipped?: boolean | undefined;
  /** A command's exit code (`-1` when it did not finish). */
  exitCode?: number | undefined;
  timeoutOccurred?: boolean | undefined;
  /** The last {@link POST_CREATE_OUTPUT_LIMIT} characters of stdout then stderr, or the reason. */
  output: string;
  durationMs: number;
}

/** What the post-create run did. */
export interface PostCreateResult {
  ok: boolean;
  steps: PostCreateStep[];
  /** The steps that failed (only ever non-empty with `onFailure: 'warn'`). */
  failures: PostCreateStep[];
}

/** Input of {@link runPostCreate}. */
export interface RunPostCreateOptions extends PostCreateOptions {
  /** The new tree. */
  path: string;
  project: Pick<ProjectConfig, 'path' | 'symlinks' | 'postCreate'>;
  /** Removes the half-made tree when a step fails in `'fail'` mode. */
  remove?: (() => Promise<void>) | undefined;
}

/**
 * Prepares a new tree: links each `project.symlinks` path (when it exists in the project and
 * not yet in the tree), then runs each `project.postCreate` command through a `LocalWorkspace`
 * rooted in the tree, one after another, each bounded by `timeoutMs`. In `'fail'` mode the first
 * failed step calls `remove` and rejects with `PROVISIONING_ERROR` whose message and
 * `details.step` carry the step's output; in `'warn'` mode every step runs and the result lists
 * the failures.
 */
export async function runPostCreate(options: RunPostCreateOptions): Promise<PostCreateResult> {
  const { path: tree, project, signal, remove } = options;
  const onFailure = options.onFailure ?? 'fail';
  const timeoutMs = options.timeoutMs ?? DEFAULT_POST_CREATE_TIMEOUT_MS;
  const steps: PostCreateStep[] = [];
  const fail = async (step: PostCreateStep): Promise<never> => {
    await remove?.().catch(() => undefined);
    throw new WorkspaceError({
      code: 'PROVISIONING_ERROR',
      message: `post-create ${step.kind} ${JSON.stringify(step.name)} failed in ${tree}${
        step.exitCode === undefined ? '' : ` (exit ${step.exitCode})`
      }: ${step.output.slice(-2_000).trim()}`,
      details: { step, steps, path: tree },
    });
  };
  try {
    for (const link of project.symlinks ?? []) {
      if (signal?.aborted) throw abortedError(signal);
      const step = await linkIntoTree(project.path, tree, link);
      steps.push(step);
      if (!step.ok && onFailure === 'fail') await fail(step);
    }
    if (project.postCreate?.length) {
      await using workspace = new LocalWorkspace({ workingDir: tree });
      for (const command of project.postCreate) {
        if (signal?.aborted) throw abortedError(signal);
        const result = await workspace.executeCommand(command, { timeoutMs, signal });
        const ok = result.exitCode === 0 && !result.timeoutOccurred;
        const step: PostCreateStep = {
          kind: 'command',
          name: command,
          ok,
          exitCode: result.exitCode,
          timeoutOccurred: result.timeoutOccurred,
          output: tail(
            `${result.stdout}${result.stderr}${result.timeoutOccurred ? `\n(timed out after ${timeoutMs} ms)` : ''}`,
          ),
          durationMs: result.durationMs,
        };
        steps.push(step);
        if (!ok && onFailure === 'fail') await fail(step);
      }
    }
  } catch (error) {
    if (WorkspaceError.isInstance(error, 'PROVISIONING_ERROR')) throw error;
    // Aborted or broken: the half-made tree goes too.
    await remove?.().catch(() => undefined);
    throw error;
  }
  const failures = steps.filter((step) => !step.ok);
  return { ok: failures.length === 0, steps, failures };
}

/** Links `<project>/<link>` to `<tree>/<link>`. */
async function linkIntoTree(project: string, tree: string, link: string): Promise<PostCreateStep> {
  const started = Date.now();
  const step = (ok: boolean, output: string, skipped?: boolean): PostCreateStep => ({
    kind: 'symlink',
    name: link,
    ok,
    ...(skipped && { skipped }),
    output,
    durationMs: Date.now() - started,
  });
  const source = path.join(project, link);
  const target = path.join(tree, link);
  if (!(await lstat(source).catch(() => undefined))) {
    return step(true, `${source} does not exist in the project; not linked`, true);
  }
  if (await lstat(target).catch(() => undefined)) {
    return step(true, `${target} exists in the tree; not linked`, true);
  }
  try {
    await mkdir(path.dirname(target), { recursive: true });
    await symlink(source, target);
    return step(true, `${target} -> ${source}`);
  } catch (error) {
    return step(false, `cannot link ${target} -> ${source}: ${(error as Error).message}`);
  }
}

/** The last {@link POST_CREATE_OUTPUT_LIMIT} characters of `text`. */
function tail(text: string): string {
  return text.length > POST_CREATE_OUTPUT_LIMIT ? text.slice(-POST_CREATE_OUTPUT_LIMIT) : text;
}
