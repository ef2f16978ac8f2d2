import { ContentHash } from './content-hash.js';

/** Repository of the offline base images. */
export const BASE_IMAGE_REPOSITORY = 'agent-workspace/base';

/** Bumped whenever the way the base image is made changes, so cached images are rebuilt. */
const BASE_IMAGE_RECIPE_VERSION = '1';

/** What goes into a base image, and so into its tag. */
export interface BaseImageRecipe {
  /** Debian suite, e.g. `bookworm`. */
  suite: string;
  /** Debian archive URI debootstrap downloads from. */
  mirror: string;
  /** Version of the Node binary copied in (`process.version`). */
  nodeVersion: string;
  /** CPU architecture (`process.arch`). */
  architecture: string;
  /** Debian packages added to the minbase variant. */
  include: readonly string[];
}

/** The content-hash tag `agent-workspace/base:<12 hex>` of a base image recipe. */
export function baseImageTag(recipe: BaseImageRecipe): string {
  const hash = new ContentHash()
    .add('recipe', BASE_IMAGE_RECIPE_VERSION)
    .add('suite', recipe.suite)
    .add('mirror', recipe.mirror)
    .add('node', recipe.nodeVersion)
    .add('architecture', recipe.architecture)
    .add('include', JSON.stringify([...recipe.include].sort()));
  return `${BASE_IMAGE_REPOSITORY}:${hash.digest()}`;
}
