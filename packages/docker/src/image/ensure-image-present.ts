import { abortedError } from '@agent-workspace/core';
import type Docker from 'dockerode';
import { findImage } from './find-image.js';
import { followImageStream, imageStreamError } from './follow-image-stream.js';
import type { ImageProgressListener } from './image-progress.js';

/** Options of {@link ensureImagePresent}. */
export interface EnsureImagePresentOptions {
  docker: Docker;
  /** The image to find or pull, e.g. `node:20-bookworm-slim`. */
  reference: string;
  /** Stops the work (and cleans up); the call then rejects with `ABORTED`. */
  signal?: AbortSignal;
  /** Receives progress events. */
  onProgress?: ImageProgressListener;
}

/**
 * The engine's description of the image `reference`, pulled first when the engine does not
 * have it. A failed pull is a `PROVISIONING_ERROR` {@link WorkspaceError} that points to the
 * offline base image.
 */
export async function ensureImagePresent(
  options: EnsureImagePresentOptions,
): Promise<Docker.ImageInspectInfo> {
  const { docker, reference, signal } = options;
  const found = await findImage(docker, reference);
  if (found) return found;
  const operation = `pulling image ${reference}`;
  const hint =
    ' (without registry access, build an offline base with `agent-workspace-docker build-base-image`)';
  options.onProgress?.({ type: 'step', message: operation });
  let stream: NodeJS.ReadableStream;
  try {
    stream = await docker.pull(reference, { abortSignal: signal });
  } catch (error) {
    if (signal?.aborted) throw abortedError(signal);
    const reason = `${(error as Error).message}${hint}`;
    throw imageStreamError({ operation, reason, log: [], cause: error, details: { reference } });
  }
  await followImageStream({ ...options, stream, operation, details: { reference } });
  const pulled = await findImage(docker, reference);
  if (!pulled) {
    throw imageStreamError({ operation, reason: `image not found after pull${hint}`, log: [] });
  }
  return pulled;
}
