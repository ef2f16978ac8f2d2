import { readFile } from 'node:fs/promises';
import { abortedError } from '@agent-workspace/core';
import Docker from 'dockerode';
import { pack } from 'tar-fs';
import { agentServerImageTag } from './agent-server-image-tag.js';
import { ensureImagePresent } from './ensure-image-present.js';
import { findImage } from './find-image.js';
import { followImageStream } from './follow-image-stream.js';
import type { BuiltImage, ImageProgressListener } from './image-progress.js';
import { parseImageReference } from './image-reference.js';
import { readGitRevision } from './read-git-revision.js';
import { resolveAgentServerPackage } from './resolve-agent-server-package.js';
import { tagImage } from './tag-image.js';
import { toImageError } from './to-image-error.js';

/** Options of {@link buildAgentServerImage}. */
export interface BuildAgentServerImageOptions {
  /**
   * The image to build on (`BASE_IMAGE`): a Debian-based image with Node 20+, such as
   * `node:20-bookworm-slim` (pulled when missing) or the offline base from `buildBaseImage()`.
   */
  baseImage: string;
  /** An extra name (`name[:tag]`) for the image; the content-hash tag is always set. */
  tag?: string | undefined;
  /**
   * The engine to build with.
   * @default new Docker() (DOCKER_HOST or the local socket)
   */
  docker?: Docker | undefined;
  /**
   * A folder laid out like the agent-server package (`Dockerfile`, `dist/bundle/`).
   * @default the installed `@agent-workspace/agent-server` package (an optional peer dependency:
   *   install it to build images; running an existing image does not need it)
   */
  agentServerDir?: string | undefined;
  /** Stops the work (and cleans up); the call then rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
  /** Receives progress events. */
  onProgress?: ImageProgressListener | undefined;
}

/**
 * Builds the agent-server image from the agent-server package's Dockerfile and bundle on
 * `baseImage`, tagged `agent-workspace/agent-server:<12 hex>` by content hash (Dockerfile,
 * bundle files, base image id). When an image with that tag exists it is returned without
 * building, so this is cheap to call before every use.
 *
 * Throws an `INVALID_ARGUMENT` {@link WorkspaceError} naming `baseImage` or `tag` when it is not
 * an image reference by Docker's grammar (checked before the engine is called); a
 * `PROVISIONING_ERROR` when the agent-server package is not installed (with the install command)
 * or its bundle is not built, the base image cannot be found or pulled,
 * or the build fails (the message ends with the last build output lines, also in
 * `details.log`); `ABORTED` when `signal` fires.
 */
export async function buildAgentServerImage(
  options: BuildAgentServerImageOptions,
): Promise<BuiltImage> {
  parseImageReference(options.baseImage, 'baseImage');
  if (options.tag !== undefined) parseImageReference(options.tag, 'tag', { allowDigest: false });
  if (options.signal?.aborted) throw abortedError(options.signal);
  try {
    return await buildOrReuse(options, options.docker ?? new Docker());
  } catch (error) {
    throw toImageError(error, 'agent-server image build', options.signal);
  }
}

/** Returns the image with the content-hash tag, building it first when the engine lacks it. */
async function buildOrReuse(
  options: BuildAgentServerImageOptions,
  docker: Docker,
): Promise<BuiltImage> {
  const { baseImage, signal, onProgress } = options;
  const source = await resolveAgentServerPackage({ dir: options.agentServerDir });
  const base = await ensureImagePresent({ docker, reference: baseImage, signal, onProgress });
  const contentTag = await agentServerImageTag({
    dockerfile: await readFile(source.dockerfilePath),
    bundleDir: source.bundleDir,
    baseImageId: base.Id,
  });
  if (signal?.aborted) throw abortedError(signal);

  const existing = await findImage(docker, contentTag);
  if (existing) {
    onProgress?.({ type: 'cached', message: `${contentTag} exists, nothing to build` });
  } else {
    onProgress?.({ type: 'step', message: `building ${contentTag} on ${baseImage}` });
    const gitSha = await readGitRevision(source.dir);
    const context = pack(source.dir, { entries: ['Dockerfile', 'dist/bundle'] });
    try {
      const stream = await docker.buildImage(context, {
        t: contentTag,
        buildargs: { BASE_IMAGE: baseImage, VERSION: source.version, GIT_SHA: gitSha ?? 'unknown' },
        // Intermediate containers go away even when a step fails.
        rm: true,
        forcerm: true,
        abortSignal: signal,
      });
      await followImageStream({
        docker,
        stream,
        operation: `agent-server image build on ${baseImage}`,
        signal,
        onProgress,
        details: { baseImage, tag: contentTag },
      });
    } finally {
      context.destroy();
    }
  }
  const imageId = existing?.Id ?? (await docker.getImage(contentTag).inspect()).Id;
  if (options.tag !== undefined) await tagImage(docker, imageId, options.tag);
  const tag = options.tag ?? contentTag;
  onProgress?.({ type: 'done', message: tag });
  return { tag, contentTag, imageId, cached: existing !== undefined };
}
