import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  type PathInspection,
  pathInspectionOf,
  type Workspace,
  type WorkspaceDirectoryEntry,
  WorkspaceError,
  type WorkspacePathInfo,
} from '@agent-workspace/core';
import { ToolFailure } from './tool-failure.js';

/** Options of {@link WorkspaceFiles}. */
export interface WorkspaceFilesOptions {
  workspace: Workspace;
  signal?: AbortSignal | undefined;
}

// Paths travel in an environment variable: no quoting, any character but NUL.
const PROBE_SCRIPT = `p=$AW_FILES_PATH
if [ -d "$p" ]; then echo directory
elif [ -f "$p" ]; then
  real=$(readlink -f -- "$p" 2>/dev/null && printf x)
  if [ -n "$real" ]; then real=\${real%x}; real=\${real%?}; else real=$p; fi
  mode=$(stat -c %a -- "$real" 2>/dev/null || stat -f %Lp -- "$real" 2>/dev/null)
  printf 'file\\n%s\\n%s\\n%s' "$(wc -c < "$real")" "$mode" "$real"
elif [ -e "$p" ] || [ -L "$p" ]; then echo other
else echo missing
fi`;

const LIST_SCRIPT = `find -H "$AW_FILES_PATH" -mindepth 1 -maxdepth 2 \\
  \\( -name '.*' -prune -exec printf 'h %s\\0' {} + \\) -o \\
  \\( -type d -exec printf 'd %s\\0' {} + \\) -o -exec printf 'f %s\\0' {} +`;

/**
 * File access for tools through the `Workspace` contract only, so a tool works the same on a
 * local, remote or Docker workspace. Contents move with `fileDownload` / `fileUpload` through a
 * temporary file on this machine: any bytes, any size (the copies stream; commands would be
 * capped at 128 KiB of arguments and have their output decoded and capped), and any file name
 * (no shell quoting). Questions about paths (`probe`, `list`, `remove`) go to the workspace's
 * `PathInspection` when it has one (an agent-server's own workspace answers them under its
 * confinement), else to small commands that get the path in an environment variable.
 */
export class WorkspaceFiles {
  readonly #workspace: Workspace;
  readonly #inspection: PathInspection | undefined;
  readonly #signal: AbortSignal | undefined;

  constructor({ workspace, signal }: WorkspaceFilesOptions) {
    this.#workspace = workspace;
    this.#inspection = pathInspectionOf(workspace);
    this.#signal = signal;
  }

  /** What is at `target` (absolute): a file (with size, mode, real path), a directory, ... */
  async probe(target: string): Promise<WorkspacePathInfo> {
    if (this.#inspection) {
      return this.#inspected(
        () => this.#inspection!.inspectPath(target, this.#options()),
        target,
        'inspect',
      );
    }
    const { stdout, stderr } = await this.#run(PROBE_SCRIPT, target, 'inspect');
    const [kind, size, mode, ...real] = stdout.split('\n');
    if (kind === 'directory' || kind === 'missing' || kind === 'other') return { kind };
    const bytes = Number.parseInt(size?.trim() ?? '', 10);
    if (kind !== 'file' || !Number.isSafeInteger(bytes)) {
      const reason = stderr.trim() || `unexpected answer ${JSON.stringify(stdout)}`;
      throw new ToolFailure(`Could not inspect ${target}: ${reason}`);
    }
    const bits = Number.parseInt(mode ?? '', 8);
    const realPath = real.join('\n');
    return {
      kind,
      size: bytes,
      mode: Number.isInteger(bits) ? bits & 0o7777 : undefined,
      // Output is decoded as UTF-8: a real path that did not survive that is not usable.
      realPath: realPath === '' || realPath.includes('\uFFFD') ? target : realPath,
    };
  }

  /** The bytes of the file at `target`. */
  read(target: string): Promise<Buffer> {
    return this.#withTempFile(async (local) => {
      const result = await this.#workspace.fileDownload(target, local);
      if (!result.success) throw new ToolFailure(`Could not read ${target}: ${result.error}`);
      return readFile(local);
    });
  }

  /**
   * Writes `data` to `target`, creating parent directories; replaces the file atomically where
   * the workspace does. `mode` (default: the umask's) is given to the copy, since some
   * workspaces keep the source's bits and others the destination's.
   */
  write(target: string, data: string | Uint8Array, mode?: number): Promise<void> {
    return this.#withTempFile(async (local) => {
      await writeFile(local, data);
      if (mode !== undefined) await chmod(local, mode);
      const result = await this.#workspace.fileUpload(local, target);
      if (!result.success) throw new ToolFailure(`Could not write ${target}: ${result.error}`);
    });
  }

  /** Removes the file at `target`; nothing when it is already gone. */
  async remove(target: string): Promise<void> {
    if (this.#inspection) {
      await this.#inspected(
        () => this.#inspection!.removeFile(target, this.#options()),
        target,
        'remove',
      );
      return;
    }
    await this.#run('rm -f -- "$AW_FILES_PATH"', target, 'remove');
  }

  /** Entries up to two levels below `directory`, in `find` order; hidden ones are not entered. */
  async list(directory: string): Promise<WorkspaceDirectoryEntry[]> {
    if (this.#inspection) {
      return this.#inspected(
        () => this.#inspection!.listDirectory(directory, this.#options()),
        directory,
        'list',
      );
    }
    // `find` fails on an unreadable subdirectory but still lists the rest: keep what it found.
    const { stdout } = await this.#run(LIST_SCRIPT, directory, 'list', { partial: true });
    return stdout
      .split('\0')
      .filter((record) => record.length > 2)
      .map((record) => ({
        path: record.slice(2),
        isDirectory: record[0] === 'd',
        hidden: record[0] === 'h',
      }));
  }

  async #run(
    script: string,
    target: string,
    verb: string,
    { partial = false }: { partial?: boolean } = {},
  ): Promise<{ stdout: string; stderr: string }> {
    const result = await this.#workspace.executeCommand(script, {
      env: { AW_FILES_PATH: target },
      signal: this.#signal,
    });
    const failed = result.exitCode !== 0 && !(partial && result.stdout !== '');
    if (failed || result.timeoutOccurred) {
      const reason = result.timeoutOccurred
        ? 'timed out'
        : result.stderr.trim() || `exit code ${result.exitCode}`;
      throw new ToolFailure(`Could not ${verb} ${target}: ${reason}`);
    }
    return result;
  }

  #options(): { signal?: AbortSignal } {
    return this.#signal ? { signal: this.#signal } : {};
  }

  /** A refusal of the workspace's path rules (outside, not a directory) is the tool's failure. */
  async #inspected<T>(ask: () => Promise<T>, target: string, verb: string): Promise<T> {
    try {
      return await ask();
    } catch (error) {
      if (!WorkspaceError.isInstance(error) || error.code === 'ABORTED') throw error;
      throw new ToolFailure(`Could not ${verb} ${target}: ${error.message}`);
    }
  }

  async #withTempFile<T>(use: (local: string) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'aw-tool-file-'));
    try {
      return await use(path.join(dir, 'content'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
