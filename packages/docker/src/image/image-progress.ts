/**
 * One report of an image build.
 *
 * - `cached`: an image with the content-hash tag exists already; nothing is built.
 * - `step`: a stage (`debootstrap`, `import`, ...) or a Dockerfile step began.
 * - `log`: one line of output of the current step.
 * - `done`: the image is ready; `message` is its tag.
 */
export interface ImageProgressEvent {
  type: 'cached' | 'step' | 'log' | 'done';
  message: string;
}

/** Receives {@link ImageProgressEvent}s while an image is resolved or built. */
export type ImageProgressListener = (event: ImageProgressEvent) => void;

/** What `buildBaseImage()` and `buildAgentServerImage()` return. */
export interface BuiltImage {
  /** The tag to run: the caller's `tag` when given, else {@link BuiltImage.contentTag}. */
  tag: string;
  /** The content-hash tag (`<repository>:<12 hex>`), the cache key of the build. */
  contentTag: string;
  /** The image id (`sha256:...`). */
  imageId: string;
  /** True when the image existed and nothing was built. */
  cached: boolean;
}
