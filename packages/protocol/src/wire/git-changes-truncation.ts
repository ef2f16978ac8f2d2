/**
 * Response header of `GET /api/git/changes` (`AGENT_SERVER_ROUTES.gitChanges`) present when the
 * search for nested repositories stopped at one of its bounds before it had looked everywhere.
 * Its value is the {@link GitChangesTruncation} that was hit. The body stays OpenHands' JSON array
 * (the changes found), so clients that do not know the header read it as before.
 */
export const GIT_CHANGES_TRUNCATED_HEADER = 'x-agent-workspace-truncated';

/**
 * The bounds of the nested-repository search, as {@link GIT_CHANGES_TRUNCATED_HEADER} names
 * them: `depth` (repositories or directories below the deepest level searched were left out),
 * `repositories` (more nested repositories than are scanned), `directories` (more directories
 * than are read while looking for repositories) and `time` (the search ran out of time). The
 * last three end the search; a value reports one of them when it was hit, else `depth`.
 */
export const GIT_CHANGES_TRUNCATIONS = ['depth', 'repositories', 'directories', 'time'] as const;

/** One of {@link GIT_CHANGES_TRUNCATIONS}. */
export type GitChangesTruncation = (typeof GIT_CHANGES_TRUNCATIONS)[number];
