/** Commits `GET /api/git/commits` answers when `limit` is left out (as in OpenHands). */
export const DEFAULT_GIT_COMMITS_LIMIT = 50;

/** Largest `limit` of `GET /api/git/commits` (as in OpenHands); more is a 422 naming `limit`. */
export const MAX_GIT_COMMITS_LIMIT = 200;

/** Longest commit subject answered, in characters; a longer one is cut and ends with `…`. */
export const MAX_GIT_COMMIT_SUBJECT_CHARS = 1000;

/** Longest commit author name answered, in characters; a longer one is cut and ends with `…`. */
export const MAX_GIT_COMMIT_AUTHOR_CHARS = 256;

/**
 * Most changes `GET /api/git/commits/{sha}/changes` answers for one commit. Past it the first
 * ones (in path order) are answered with `GIT_CHANGES_TRUNCATED_HEADER` set to
 * {@link GIT_COMMIT_CHANGES_TRUNCATION}.
 */
export const MAX_GIT_COMMIT_CHANGES = 10_000;

/** Value of `GIT_CHANGES_TRUNCATED_HEADER` when a commit changed more than {@link MAX_GIT_COMMIT_CHANGES} paths. */
export const GIT_COMMIT_CHANGES_TRUNCATION = 'changes';

/** A commit sha as the git routes accept it: 4 to 64 hex digits, so it can never read as an option. */
export const GIT_SHA_PATTERN = /^[0-9a-fA-F]{4,64}$/;
