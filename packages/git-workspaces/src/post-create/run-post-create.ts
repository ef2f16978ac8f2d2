import { lstatSync, mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { abortedError, LocalWorkspace, WorkspaceError } from '@agent-workspace/core';
import { DirectoryHandle } from '@agent-workspace/core/internal';
import { z } from 'zod';
import { invalidConfig, relativeInsideSchema } from '../provisioner/parse-provision-config.js';
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
 * not yet in the tree; an entry naming `..`, `.git` or an absolute path is `INVALID_CONFIG`
 * naming `project.symlinks.<i>` before anything runs, and a link whose way into the tree or the
 * project passes through a symbolic link or a non-directory is refused as a failed step), then runs each `project.postCreate` command through a `LocalWorkspace`
 * rooted in the tree, one after another, each bounded by `timeoutMs`. In `'fail'` mode the first
 * failed step calls `remove` and rejects with `PROVISIONING_ERROR` whose message and
 * `details.step` carry the step's output; in `'warn'` mode every step runs and the result lists
 * the failures.
 */
export async function runPostCreate(options: RunPostCreateOptions): Promise<PostCreateResult> {
  const { path: tree, project, signal, remove } = options;
  assertSymlinkEntries(project.symlinks);
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

const symlinksSchema = z.object({ project: z.object({ symlinks: z.array(relativeInsideSchema) }) });

/**
 * Rejects with `INVALID_CONFIG` (`details.fields` like `project.symlinks.0`) unless every entry
 * is a relative path inside the project, outside `.git`, without `..` above it.
 */
export function assertSymlinkEntries(symlinks: readonly string[] | undefined): void {
  const checked = symlinksSchema.safeParse({ project: { symlinks: symlinks ?? [] } });
  if (!checked.success) invalidConfig('post-create config', checked.error);
}

/**
 * Links `<project>/<link>` to `<tree>/<link>`. The walk to the link's directory opens each
 * component without following symbolic links and makes the missing ones through the open
 * parent (`/proc/self/fd`, as `openat`/`mkdirat` would), so a component swapped for a link
 * meanwhile cannot lead it out of the tree; the project side is walked the same way.
 */
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
  const parts = path.posix
    .normalize(link)
    .split('/')
    .filter((part) => part !== '' && part !== '.');
  const name = parts.pop() as string;
  const source = path.join(project, ...parts, name);
  const target = path.join(tree, ...parts, name);
  const sourceParent = walk(project, parts, false);
  if (sourceParent === 'missing') {
    return step(true, `${source} does not exist in the project; not linked`, true);
  }
  if (typeof sourceParent === 'string') return step(false, `refused ${source}: ${sourceParent}`);
  try {
    if (!lstatSync(sourceParent.child(name), { throwIfNoEntry: false })) {
      return step(true, `${source} does not exist in the project; not linked`, true);
    }
  } finally {
    sourceParent.close();
  }
  const targetParent = walk(tree, parts, true);
  if (typeof targetParent === 'string') return step(false, `refused ${target}: ${targetParent}`);
  try {
    symlinkSync(source, targetParent.child(name));
    return step(true, `${target} -> ${source}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      return step(true, `${target} exists in the tree; not linked`, true);
    }
    return step(false, `cannot link ${target} -> ${source}: ${(error as Error).message}`);
  } finally {
    targetParent.close();
  }
}

/**
 * Opens `<base>/<parts...>` one component at a time without following links below `base`
 * (which may itself sit behind a link, e.g. a project reached through one), making missing
 * directories when `make`. Returns the open directory, `'missing'`, or why it was refused.
 */
function walk(base: string, parts: string[], make: boolean): DirectoryHandle | 'missing' | string {
  let current: DirectoryHandle;
  try {
    current = DirectoryHandle.open(realpathSync(base));
  } catch (error) {
    return `cannot open ${base}: ${(error as Error).message}`;
  }
  for (const [index, part] of parts.entries()) {
    const where = path.join(base, ...parts.slice(0, index + 1));
    try {
      if (make) {
        try {
          mkdirSync(current.child(part));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
      }
      const next = current.openChild(part);
      current.close();
      current = next;
    } catch (error) {
      current.close();
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && !make) return 'missing';
      if (code === 'ELOOP' || code === 'ENOTDIR') {
        return `${where} is a symbolic link or not a directory; post-create links never leave the tree or the project`;
      }
      return `cannot open ${where}: ${(error as Error).message}`;
    }
  }
  return current;
}

/** The last {@link POST_CREATE_OUTPUT_LIMIT} characters of `text`. */
function tail(text: string): string {
  return text.length > POST_CREATE_OUTPUT_LIMIT ? text.slice(-POST_CREATE_OUTPUT_LIMIT) : text;
}
