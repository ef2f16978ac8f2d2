import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Workspace } from '@agent-workspace/core';
import { ToolFailure } from './tool-failure.js';

/** What {@link WorkspaceFiles.probe} found at a path. */
export type WorkspacePathInfo =
  | { kind: 'missing' | 'directory' | 'other' }
  | {
      kind: 'file';
      /** Size in bytes. */
      size: number;
      /** Permission bits, e.g. `0o755`; `undefined` when `stat` could not tell. */
      mode: number | undefined;
      /** The path with symbolic links resolved: where a write must go to keep the link. */
      realPath: string;
    };

/** One entry of {@link WorkspaceFiles.list}. */
export interface WorkspaceDirectoryEntry {
  /** Absolute path. */
  path: string;
  /** Directories only (a symbolic link to a directory is not followed). */
  isDirectory: boolean;
  /** Name starts with a dot; its contents are not listed. */
  hidden: boolean;
}

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
 * (no shell quoting). Questions about paths (`probe`, `list`, `remove`) are small commands that
 * get the path in an environment variable.
 */
export class WorkspaceFiles {
  readonly #workspace: Workspace;
  readonly #signal: AbortSignal | undefined;

  constructor({ workspace, signal }: WorkspaceFilesOptions) {
    this.#workspace = workspace;
    this.#signal = signal;
  }

  /** What is at `target` (absolute): a file (with size, mode, real path), a directory, ... */
  async probe(target: string): Promise<WorkspacePathInfo> {
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
    await this.#run('rm -f -- "$AW_FILES_PATH"', target, 'remove');
  }

  /** Entries up to two levels below `directory`, in `find` order; hidden ones are not entered. */
  async list(directory: string): Promise<WorkspaceDirectoryEntry[]> {
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

  async #withTempFile<T>(use: (local: string) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'aw-tool-file-'));
    try {
      return await use(path.join(dir, 'content'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
