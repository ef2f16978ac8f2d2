import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { type FileHandle, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FileOperationResult } from '@agent-workspace/protocol';
import { AGENT_SERVER_ROUTES } from '@agent-workspace/protocol';
import {
  type CopyPaths,
  describeCopyError,
  errorCode,
  findNonDirectoryAncestor,
} from '../local/describe-copy-error.js';
import {
  type AgentServerClient,
  type AgentServerRequest,
  errorDetail,
} from './agent-server-client.js';
import { isFileFailureStatus } from './is-file-failure-status.js';

/** Options of {@link downloadRemoteFile}. */
export interface DownloadRemoteFileOptions {
  client: AgentServerClient;
  /** Absolute path on the server. */
  sourcePath: string;
  /** Absolute path on this machine. */
  destinationPath: string;
  signal?: AbortSignal | undefined;
}

/** A local file-system failure, returned as `success: false`. */
/** Buffer size of the destination stream. */
const WRITE_CHUNK_BYTES = 1024 * 1024;

class LocalFailure extends Error {}

/**
 * Downloads a file with `GET /api/file/download?path=<source>`, streaming the body into a
 * temporary file next to the destination and renaming it over the destination (parents are
 * created; readers never see a partial file; a failure leaves no temporary file behind).
 *
 * File problems are results: a missing remote file (404), a directory ("Path is not a file"),
 * other refusals naming the file, a destination that is a directory or sits below a file, and
 * local write errors give `{ success: false, error }`. Transport and auth failures throw
 * (`CONNECTION_ERROR`, also for a body cut off midway; `AUTHENTICATION_ERROR`; `SERVER_ERROR`).
 */
export async function downloadRemoteFile({
  client,
  sourcePath,
  destinationPath,
  signal,
}: DownloadRemoteFileOptions): Promise<FileOperationResult> {
  const paths: CopyPaths = { sourcePath, destinationPath };
  const failed = (error: string): FileOperationResult => ({
    success: false,
    sourcePath,
    destinationPath,
    error,
  });
  try {
    await checkDestination(paths);
  } catch (error) {
    if (error instanceof LocalFailure) return failed(error.message);
    throw error;
  }
  const request: AgentServerRequest = {
    method: 'GET',
    path: AGENT_SERVER_ROUTES.fileDownload,
    query: { path: sourcePath },
    signal,
  };
  const response = await client.send(request);
  if (response.statusCode < 200 || response.statusCode > 299) {
    const reply = await client.read(response, request);
    const detail = errorDetail(reply);
    if (isFileFailureStatus(reply.status, detail)) {
      const reason = reply.status === 404 ? 'file not found in the workspace' : detail;
      return failed(`cannot download ${sourcePath}: ${reason} (HTTP ${reply.status})`);
    }
    throw client.statusError(reply, request);
  }

  const directory = path.dirname(destinationPath);
  const tempPath = path.join(
    directory,
    `.${path.basename(destinationPath)}.${randomBytes(6).toString('hex')}.tmp`,
  );
  let output: FileHandle | undefined;
  let renamed = false;
  try {
    await localStep(paths, 'create-parent', () => mkdir(directory, { recursive: true }));
    output = await localStep(paths, 'write-destination', () => open(tempPath, 'wx'));
    // The numeric fd takes the callback write path, much faster than FileHandle's promise writes;
    // the handle still owns closing.
    const writer = createWriteStream('', {
      fd: output.fd,
      autoClose: false,
      highWaterMark: WRITE_CHUNK_BYTES,
    });
    let writeError: unknown;
    writer.once('error', (error) => {
      writeError = error;
    });
    try {
      await pipeline(response.body, writer);
    } catch (error) {
      // A write error on our side is a result; a body that broke off is a transport failure.
      if (writeError === undefined) throw error;
      throw new LocalFailure(describeCopyError(writeError, 'write-destination', paths));
    }
    await output.close();
    await localStep(paths, 'write-destination', () => rename(tempPath, destinationPath));
    renamed = true;
    return { success: true, sourcePath, destinationPath, fileSize: writer.bytesWritten };
  } catch (error) {
    if (error instanceof LocalFailure) return failed(error.message);
    throw client.failureOf(error, request);
  } finally {
    if (!renamed) {
      response.body.destroy();
      await output?.close().catch(() => {});
      await rm(tempPath, { force: true }).catch(() => {});
    }
  }
}

/** Fails when the destination is a directory or sits below a file. */
async function checkDestination(paths: CopyPaths): Promise<void> {
  try {
    if ((await stat(paths.destinationPath)).isDirectory()) {
      throw new LocalFailure(`destination is a directory: ${paths.destinationPath}`);
    }
  } catch (error) {
    if (error instanceof LocalFailure) throw error;
    const code = errorCode(error);
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') throw await parentIsFile(paths);
    throw new LocalFailure(describeCopyError(error, 'inspect-destination', paths));
  }
}

/** Runs a local file-system step, turning its error into a {@link LocalFailure}. */
async function localStep<T>(
  paths: CopyPaths,
  step: 'create-parent' | 'write-destination',
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const code = errorCode(error);
    if (step === 'create-parent' && (code === 'ENOTDIR' || code === 'EEXIST')) {
      throw await parentIsFile(paths);
    }
    throw new LocalFailure(describeCopyError(error, step, paths));
  }
}

/** The failure for a destination whose parent path runs through a file. */
async function parentIsFile(paths: CopyPaths): Promise<LocalFailure> {
  const parent = path.dirname(paths.destinationPath);
  const blocker = await findNonDirectoryAncestor(parent);
  return new LocalFailure(
    blocker
      ? `destination parent is not a directory: ${blocker} is a file`
      : `destination parent is not a directory: ${parent}`,
  );
}
