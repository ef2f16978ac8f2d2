import type Docker from 'dockerode';

/** The engine's description of the image `reference`, or `undefined` when it has none. */
export async function findImage(
  docker: Docker,
  reference: string,
): Promise<Docker.ImageInspectInfo | undefined> {
  try {
    return await docker.getImage(reference).inspect();
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return undefined;
    throw error;
  }
}
