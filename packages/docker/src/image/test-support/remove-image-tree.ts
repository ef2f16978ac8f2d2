import type Docker from 'dockerode';

/**
 * Removes an image and every image built on it (the classic builder keeps each step's image,
 * also after a failed build), children first. Missing images are ignored.
 */
export async function removeImageTree(docker: Docker, reference: string): Promise<void> {
  const root = await docker
    .getImage(reference)
    .inspect()
    .catch(() => undefined);
  if (!root) return;
  const images = await docker.listImages({ all: true });
  const order: string[] = [];
  const visit = (id: string): void => {
    for (const child of images.filter((image) => image.ParentId === id)) visit(child.Id);
    order.push(id);
  };
  visit(root.Id);
  for (const id of order) {
    await docker
      .getImage(id)
      .remove({ force: true })
      .catch(() => {});
  }
}
