import type Docker from 'dockerode';
import { type PackOptions, pack } from 'tar-fs';
import { followImageStream } from './follow-image-stream.js';
import type { ImageProgressListener } from './image-progress.js';
import { imageNameParts } from './tag-image.js';

/** Options of {@link importRootFilesystem}. */
export interface ImportRootFilesystemOptions {
  docker: Docker;
  /** The root file system to import. */
  rootDir: string;
  /** The name (`name[:tag]`) of the new image. */
  reference: string;
  /** Dockerfile instructions applied to the image (`ENV ...`, `CMD ...`). */
  changes?: readonly string[];
  /** Stops the work (and cleans up); the call then rejects with `ABORTED`. */
  signal?: AbortSignal;
  /** Receives progress events. */
  onProgress?: ImageProgressListener;
}

/**
 * `docker import` of a folder: the folder is streamed to the engine as a tar (no archive on
 * disk), keeping modes (setuid, sticky), owners and symlinks. Device nodes and sockets are
 * left out; the engine provides `/dev` in containers.
 */
export async function importRootFilesystem(options: ImportRootFilesystemOptions): Promise<void> {
  const { docker, signal } = options;
  // umask 0 keeps modes such as /tmp's 1777 (tar-fs knows the option; its types do not).
  const packOptions: PackOptions & { umask: number } = { strict: false, umask: 0 };
  const archive = pack(options.rootDir, packOptions);
  try {
    const stream = await docker.importImage(archive, {
      ...imageNameParts(options.reference, 'reference'),
      changes: [...(options.changes ?? [])],
      abortSignal: signal,
    });
    await followImageStream({
      docker,
      stream,
      operation: `docker import of ${options.rootDir}`,
      signal,
      onProgress: options.onProgress,
      details: { reference: options.reference },
    });
  } finally {
    archive.destroy();
  }
}
