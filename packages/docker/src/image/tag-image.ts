import type Docker from 'dockerode';
import { parseImageReference } from './image-reference.js';

/**
 * The `{ repo, tag }` the engine's tag and import calls take for a name to give an image
 * (`name[:tag]`, tag `latest` when absent). Throws `INVALID_ARGUMENT` naming `field` for
 * anything else, a digest included.
 */
export function imageNameParts(reference: string, field: string): { repo: string; tag: string } {
  const { repository, tag } = parseImageReference(reference, field, { allowDigest: false });
  return { repo: repository, tag: tag ?? 'latest' };
}

/** Gives the image `imageId` the extra name `reference` (`name[:tag]`). */
export async function tagImage(docker: Docker, imageId: string, reference: string): Promise<void> {
  await docker.getImage(imageId).tag(imageNameParts(reference, 'tag'));
}
