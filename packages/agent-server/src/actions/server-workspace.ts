import { createReadStream, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import {
  BaseWorkspace,
  type CommandRequest,
  type CommandResult,
  type FileOperationResult,
  type GitChange,
  type GitDiff,
  WorkspaceError,
} from '@agent-workspace/core';
import { openRegularFile } from '@agent-workspace/core/internal';
import type { ServerContext } from '../app/server-context.js';
import { writeServerFile } from './server-files.js';

/**
 * The server's own services as a `Workspace`, so that tools written against the contract (the
 * SDK's file editor) act exactly as the routes do: commands through the bash service (sandbox,
 * limits, memory watch), files through the path walker (race-free, confined when the server
 * is). Git is not needed by those tools and answers `NOT_SUPPORTED`.
 */
export class ServerWorkspace extends BaseWorkspace {
  readonly kind = 'agent-server';
  readonly #context: ServerContext;

  constructor(context: ServerContext) {
    super({ workingDir: context.options.workingDir });
    this.#context = context;
  }

  protected async runCommand(request: CommandRequest): Promise<CommandResult> {
    const started = await this.#context.bash.startCommand({
      command: request.command,
      cwd: request.cwd,
      timeoutSeconds: request.timeoutMs / 1000,
      env: request.env,
      captureOutput: true,
      detached: false,
    });
    const stop = () => this.#context.bash.running(started.event.id)?.handle.signal('SIGKILL');
    request.signal?.addEventListener('abort', stop, { once: true });
    try {
      return (await started.completion).result;
    } finally {
      request.signal?.removeEventListener('abort', stop);
      started.release();
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

  protected runGitChanges(): Promise<GitChange[]> {
    return Promise.reject(notSupported());
  }

  protected runGitDiff(): Promise<GitDiff> {
    return Promise.reject(notSupported());
  }

  protected async runClose(): Promise<void> {}
}

function notSupported(): WorkspaceError {
  return new WorkspaceError({
    code: 'NOT_SUPPORTED',
    message: 'the action executor reads git state through the git routes, not its file tools',
  });
}
