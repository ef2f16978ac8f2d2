import type Docker from 'dockerode';
import { buildAgentServerImage } from './build-agent-server-image.js';
import { buildBaseImage } from './build-base-image.js';
import type { ImageProgressListener } from './image-progress.js';

/** Options of {@link resolveAgentServerImage}. */
export interface ResolveAgentServerImageOptions {
  /**
   * The base image to build on, e.g. `node:20-bookworm-slim` (pulled when missing).
   * @default the offline base image from `buildBaseImage()`
   */
  baseImage?: string | undefined;
  /** @default new Docker() */
  docker?: Docker | undefined;
  /**
   * A folder laid out like the agent-server package (`Dockerfile`, `dist/bundle/`).
   * @default the installed `@agent-workspace/agent-server` package (an optional peer dependency)
   */
  agentServerDir?: string | undefined;
  /** Stops the work (and cleans up); the call then rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
  /** Receives progress events. */
  onProgress?: ImageProgressListener | undefined;
}

/**
 * The name of an agent-server image ready to run, built only when needed: the base image
 * (`baseImage`, or the offline base from {@link buildBaseImage}) and the agent-server image on
 * it, each reused when its content-hash tag exists, so a warm call costs a few engine calls.
 * A cold offline base runs debootstrap, which needs root and takes about a minute.
 */
export async function resolveAgentServerImage(
  options: ResolveAgentServerImageOptions = {},
): Promise<string> {
  const { baseImage, agentServerDir, ...common } = options;
  const base = baseImage ?? (await buildBaseImage(common)).tag;
  return (await buildAgentServerImage({ ...common, agentServerDir, baseImage: base })).tag;
}
