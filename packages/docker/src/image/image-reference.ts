import { invalidArgument } from '@agent-workspace/core';

// Docker's reference grammar (github.com/distribution/reference, regexp.go):
//   reference := name [ ":" tag ] [ "@" digest ]
//   name      := [ host [ ":" port ] "/" ] path-component [ "/" path-component ]*
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const HOST_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const HOST = `(?:${HOST_COMPONENT}(?:\\.${HOST_COMPONENT})*|\\[[a-fA-F0-9:]+\\])`;
const NAME = new RegExp(`^(?:${HOST}(?::[0-9]+)?/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*$`);
const TAG = /^\w[\w.-]{0,127}$/;
const DIGEST = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/;

/** Docker's limit on the name part (registry and path) of a reference. */
const MAX_NAME_LENGTH = 255;

/** An image reference split into its parts, as written (no `docker.io/library/` added). */
export interface ImageReference {
  /** Registry host (and port) and path, e.g. `registry.test:5000/team/app` or `node`. */
  repository: string;
  /** The tag, when the reference has one (`latest` is not filled in). */
  tag?: string;
  /** The digest (`sha256:<hex>`), when the reference has one. */
  digest?: string;
}

/** Options of {@link checkImageReference} and {@link parseImageReference}. */
export interface ImageReferenceOptions {
  /**
   * Accept `@<digest>`. False for a name to give an image (`docker tag` takes `name[:tag]`).
   * @default true
   */
  allowDigest?: boolean;
}

/**
 * Why `reference` is not an image reference by Docker's grammar
 * (`[host[:port]/]path[:tag][@digest]`: lowercase path components of letters and digits joined
 * by `.`, `_`, `__` or dashes; a tag of up to 128 word characters, dots and dashes not starting
 * with a dot or dash; a digest `algorithm:hex`), or `undefined` when it is one.
 */
export function checkImageReference(
  reference: string,
  options: ImageReferenceOptions = {},
): string | undefined {
  return split(reference, options).problem;
}

/**
 * Splits a valid image reference into its parts. Throws an `INVALID_ARGUMENT`
 * `WorkspaceError` naming `field` (`details.field`) and the reason
 * ({@link checkImageReference}) otherwise, before any engine sees it.
 */
export function parseImageReference(
  reference: string,
  field: string,
  options: ImageReferenceOptions = {},
): ImageReference {
  const { problem, parts } = split(reference, options);
  if (problem !== undefined) throw invalidArgument(field, problem);
  return parts;
}

/** The parts of `reference`, or the first problem found in it. */
function split(
  reference: unknown,
  options: ImageReferenceOptions,
): { problem?: string; parts: ImageReference } {
  const parts: ImageReference = { repository: '' };
  if (typeof reference !== 'string' || reference === '') {
    return { problem: 'must be a non-empty image reference', parts };
  }
  const invalid = (reason: string) => ({
    problem: `is not a valid image reference (${JSON.stringify(reference)}): ${reason}`,
    parts,
  });
  if (/\s/.test(reference)) return invalid('it contains whitespace');
  let rest = reference;
  const at = rest.indexOf('@');
  if (at >= 0) {
    if (options.allowDigest === false) {
      return invalid('a digest (@...) cannot name an image; use name[:tag]');
    }
    parts.digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(parts.digest)) {
      return invalid('the digest must be <algorithm>:<at least 32 hex digits>, e.g. sha256:…');
    }
  }
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    parts.tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(parts.tag)) {
      return invalid(
        'the tag must be 1 to 128 letters, digits, "_", "." or "-", not starting with "." or "-"',
      );
    }
  }
  parts.repository = rest;
  if (rest.length > MAX_NAME_LENGTH) {
    return invalid(`the name must be at most ${MAX_NAME_LENGTH} characters`);
  }
  if (!NAME.test(rest)) {
    const path = rest.slice(rest.indexOf('/') + 1);
    return invalid(
      path !== path.toLowerCase() && NAME.test(rest.toLowerCase())
        ? 'the repository path must be lowercase'
        : 'the name must be [host[:port]/]path, each path component lowercase letters and digits joined by ".", "_", "__" or "-"',
    );
  }
  return { parts };
}
