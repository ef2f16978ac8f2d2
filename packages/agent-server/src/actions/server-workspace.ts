import { createReadStream, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import {
  BaseWorkspace,
  type CommandRequest,
  type CommandResult,
  type FileOperationResult,
  type GitChange,
  type GitChangesOptions,
  type GitDiff,
  type PathInspection,
  type WorkspaceDirectoryEntry,
  type WorkspacePathInfo,
} from '@agent-workspace/core';
import { openRegularFile } from '@agent-workspace/core/internal';
import type { ServerContext } from '../app/server-context.js';
import type { StoredBashEvent } from '../bash/bash-event-records.js';
import { readServerGitChanges, readServerGitDiff } from '../git/server-git.js';
import { writeServerFile } from './server-files.js';
import {
  inspectServerPath,
  listServerDirectory,
  removeServerFile,
} from './server-path-inspection.js';

/** Options of {@link ServerWorkspace}. */
export interface ServerWorkspaceOptions {
  /**
   * The directory relative paths and cwds resolve against: the server's working directory
   * (default) or a directory inside it, already resolved through the server's path walker (a
   * conversation's `working_dir`). Paths are still confined to the server's working directory.
   */
  workingDir?: string | undefined;
}

/**
 * The server's own services as a `Workspace`: the one trust boundary of everything the server
 * runs on an agent's behalf (the `/execute_action` file editor, conversation tools). Commands go
 * through the bash service (command sandbox, environment without the server's keys, limits,
 * memory watch, journal and start-up sweep, orphan handling); files, git and path questions
 * ({@link PathInspection}) through the race-free path walker, confined when the server is; git
 * in the sandbox as the git routes run it. `close()` ends the commands it started.
 */
export class ServerWorkspace extends BaseWorkspace implements PathInspection {
  readonly kind = 'agent-server';
  readonly #context: ServerContext;
  /** Ids of the commands running for this workspace. */
  readonly #running = new Set<string>();

  constructor(context: ServerContext, options: ServerWorkspaceOptions = {}) {
    super({ workingDir: options.workingDir ?? context.options.workingDir });
    this.#context = context;
  }

  protected async runCommand(request: CommandRequest): Promise<CommandResult> {
    const { bash } = this.#context;
    const streaming = request.onStdout !== undefined || request.onStderr !== undefined;
    // Output events may come before the start resolves: collect them until the id is known.
    const early: StoredBashEvent[] = [];
    let commandId: string | undefined;
    const forward = (stored: StoredBashEvent): void => {
      const { event } = stored;
      if (event.kind !== 'BashOutput') return;
      if (commandId === undefined) early.push(stored);
      else if (event.command_id === commandId) {
        if (event.stdout) request.onStdout?.(event.stdout);
        if (event.stderr) request.onStderr?.(event.stderr);
      }
    };
    const unsubscribe = streaming ? bash.subscribe(forward) : () => {};
    try {
      const started = await bash.startCommand({
        command: request.command,
        cwd: request.cwd,
        timeoutSeconds: request.timeoutMs / 1000,
        env: request.env,
        outputMasker: request.outputMasker,
        captureOutput: true,
        detached: false,
      });
      commandId = started.event.id;
      this.#running.add(commandId);
      for (const stored of early.splice(0)) forward(stored);
      const stop = () => bash.running(started.event.id)?.handle.signal('SIGKILL');
      request.signal?.addEventListener('abort', stop, { once: true });
      try {
        return (await started.completion).result;
      } finally {
        request.signal?.removeEventListener('abort', stop);
        this.#running.delete(started.event.id);
        started.release();
      }
    } finally {
      unsubscribe();
    }
  }

  protected async runFileUpload(
    sourcePath: string,
    destinationPath: string,
  ): Promise<FileOperationResult> {
    const written = await writeServerFile(
      this.#context,
      destinationPath,
      'destinationPath',
      createReadStream(sourcePath),
    );
    return { success: true, sourcePath, destinationPath: written };
  }

  protected async runFileDownload(
    sourcePath: string,
    destinationPath: string,
  ): Promise<FileOperationResult> {
    const { fd, stats } = openRegularFile(this.#context.paths, sourcePath, 'sourcePath');
    await pipeline(createReadStream('', { fd }), createWriteStream(destinationPath));
    return { success: true, sourcePath, destinationPath, fileSize: stats.size };
  }

  protected async runGitChanges(
    repositoryPath: string,
    { ref, onTruncated }: GitChangesOptions,
  ): Promise<GitChange[]> {
    const { changes, truncation } = await readServerGitChanges(this.#context, {
      path: repositoryPath,
      ref,
    });
    if (truncation !== undefined) onTruncated?.(truncation);
    return changes;
  }

  protected runGitDiff(filePath: string): Promise<GitDiff> {
    return readServerGitDiff(this.#context, { path: filePath });
  }

  /** What is at the absolute `path`, under the server's path rules. */
  async inspectPath(path: string): Promise<WorkspacePathInfo> {
    this.assertOpen();
    return inspectServerPath(this.#context.paths, path);
  }

  /** Entries up to two levels below the directory `path`, under the server's path rules. */
  async listDirectory(path: string): Promise<WorkspaceDirectoryEntry[]> {
    this.assertOpen();
    return listServerDirectory(this.#context.paths, path);
  }

  /** Removes the file or link at `path`, under the server's path rules. */
  async removeFile(path: string): Promise<void> {
    this.assertOpen();
    removeServerFile(this.#context.paths, path);
  }

  /** Ends the commands still running for this workspace (their process groups get SIGKILL). */
  protected async runClose(): Promise<void> {
    const { bash } = this.#context;
    const completions = [...this.#running].map((id) => {
      const running = bash.running(id);
      running?.handle.signal('SIGKILL');
      return running?.completion;
    });
    await Promise.all(completions);
  }
}
