import { z } from 'zod';
import { clientPathSchema } from '../limits/command-input-schemas.js';
import {
  DEFAULT_GIT_COMMITS_LIMIT,
  GIT_SHA_PATTERN,
  MAX_GIT_COMMIT_AUTHOR_CHARS,
  MAX_GIT_COMMIT_SUBJECT_CHARS,
  MAX_GIT_COMMITS_LIMIT,
} from '../limits/git-history-limits.js';

/** Wire shape of one commit of `GET /api/git/commits` (OpenHands `GitCommit`). */
export const gitCommitWireSchema = z.object({
  sha: z.string().describe('Full commit id'),
  short_sha: z.string().describe('Abbreviated commit id, as git abbreviates it'),
  subject: z
    .string()
    .max(MAX_GIT_COMMIT_SUBJECT_CHARS + 1)
    .describe('First line of the message'),
  author: z
    .string()
    .max(MAX_GIT_COMMIT_AUTHOR_CHARS + 1)
    .describe('Author name'),
  timestamp: z.string().describe('Author date, strict ISO 8601 with UTC offset (git %aI)'),
});

/** Wire JSON of a {@link GitCommit}. */
export type GitCommitWire = z.infer<typeof gitCommitWireSchema>;

/** Wire shape of `GET /api/git/commits` (OpenHands `GitCommitsPage`). */
export const gitCommitsPageWireSchema = z.object({
  commits: z.array(gitCommitWireSchema),
  has_more: z.boolean().describe('True when the history holds more commits than were answered'),
});

/** Wire JSON of a {@link GitCommitsPage}. */
export type GitCommitsPageWire = z.infer<typeof gitCommitsPageWireSchema>;

/** Query of `GET /api/git/commits`: the repository directory and how many commits (1 to 200). */
export const gitCommitsQueryWireSchema = z.object({
  path: clientPathSchema.describe(
    'Repository directory; relative paths resolve against workingDir',
  ),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_GIT_COMMITS_LIMIT)
    .default(DEFAULT_GIT_COMMITS_LIMIT)
    .describe('Maximum commits to return'),
});

/** Path parameters of `GET /api/git/commits/{sha}/changes`: a hex-only sha, never an option. */
export const gitCommitShaParamsWireSchema = z.object({
  sha: z.string().regex(GIT_SHA_PATTERN).describe('Commit SHA, 4 to 64 hex digits'),
});

/** One commit of a repository's history. */
export interface GitCommit {
  /** Full commit id. */
  sha: string;
  /** Abbreviated commit id. */
  shortSha: string;
  /** First line of the message, cut at `MAX_GIT_COMMIT_SUBJECT_CHARS`. */
  subject: string;
  /** Author name, cut at `MAX_GIT_COMMIT_AUTHOR_CHARS`. */
  author: string;
  /** Author date, strict ISO 8601 with its UTC offset. */
  timestamp: string;
}

/** The most recent commits reachable from HEAD, newest first. */
export interface GitCommitsPage {
  commits: GitCommit[];
  /** True when the history holds more commits than `commits`. */
  hasMore: boolean;
}

/** The wire JSON of `page`. */
export function toGitCommitsPageWire(page: GitCommitsPage): GitCommitsPageWire {
  return {
    commits: page.commits.map(({ shortSha, ...rest }) => ({ ...rest, short_sha: shortSha })),
    has_more: page.hasMore,
  };
}

/** The {@link GitCommitsPage} of wire JSON. */
export function fromGitCommitsPageWire(wire: GitCommitsPageWire): GitCommitsPage {
  return {
    commits: wire.commits.map(({ short_sha, ...rest }) => ({ ...rest, shortSha: short_sha })),
    hasMore: wire.has_more,
  };
}
