import { invalidArgument } from '@agent-workspace/core';
import type Docker from 'dockerode';

/** Splits `name[:tag]` into repository and tag (`latest` when absent). */
export function parseImageReference(reference: string): { repo: string; tag: string } {
  const slash = reference.lastIndexOf('/');
  const colon = reference.lastIndexOf(':');
  if (reference.includes('@') || /\s/.test(reference) || reference === '') {
    throw invalidArgument('tag', `must be an image name with an optional tag, got "${reference}"`);
  }
  return colon > slash
    ? { repo: reference.slice(0, colon), tag: reference.slice(colon + 1) }
    : { repo: reference, tag: 'latest' };
}

/** Gives the image `imageId` the extra name `reference` (`name[:tag]`). */
export async function tagImage(docker: Docker, imageId: string, reference: string): Promise<void> {
  await docker.getImage(imageId).tag(parseImageReference(reference));
}
