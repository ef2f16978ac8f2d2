/**
 * OpenHands' workspace archive, `GET /api/file/archive` (`AGENT_SERVER_ROUTES.fileArchive`):
 *
 * - `path`: absolute directory (400 relative, 404 missing, 400 not a directory). When it is no
 *   git work tree but exactly one lies at most {@link WORKSPACE_ARCHIVE_REPOSITORY_DEPTH} levels
 *   below it (hidden and vendored directories skipped), that repository is archived instead.
 * - `format`: `git-delta` (default) answers a binary git patch (`text/x-patch`, file
 *   `<name>.patch`) of the working tree, untracked files included, against `base_ref` or the
 *   auto-detected comparison ref; `tar.gz` answers a gzip tarball (`application/gzip`, file
 *   `<name>.tar.gz`) whose entries sit under `<name>/` and end with a manifest
 *   ({@link WORKSPACE_ARCHIVE_MANIFEST_NAME}, unless the directory has a file of that name).
 * - `base_ref`: git-delta only; one starting with `-` is 400, one that does not resolve is 400.
 * - `use_default_excludes` (default `true`): apply {@link WORKSPACE_ARCHIVE_DEFAULT_EXCLUDES}.
 * - `exclude` (repeatable): further globs. A bare name (`*.bin`) matches any path component, a
 *   pattern with `/` is anchored at the archived directory and matches it and what lies below,
 *   `*` never crosses `/`, and a trailing `/` matches directories only.
 *
 * Credential-bearing git internals ({@link WORKSPACE_ARCHIVE_GIT_SECRETS} and every `logs/`
 * below a `.git` directory) are never archived, not even with `use_default_excludes=false`.
 */
export const WORKSPACE_ARCHIVE_FORMATS = ['git-delta', 'tar.gz'] as const;

/** One of {@link WORKSPACE_ARCHIVE_FORMATS}. */
export type WorkspaceArchiveFormat = (typeof WORKSPACE_ARCHIVE_FORMATS)[number];

/** Media type of each archive format. */
export const WORKSPACE_ARCHIVE_MEDIA_TYPES: Readonly<Record<WorkspaceArchiveFormat, string>> = {
  'git-delta': 'text/x-patch',
  'tar.gz': 'application/gzip',
};

/** File-name suffix of each archive format (the answer's `Content-Disposition`). */
export const WORKSPACE_ARCHIVE_SUFFIXES: Readonly<Record<WorkspaceArchiveFormat, string>> = {
  'git-delta': '.patch',
  'tar.gz': '.tar.gz',
};

/** Name of the manifest entry at the end of a `tar.gz` archive, below its top directory. */
export const WORKSPACE_ARCHIVE_MANIFEST_NAME = 'archive_manifest.json';

/** The excludes `use_default_excludes=true` applies: git's directory, dependencies, caches, builds. */
export const WORKSPACE_ARCHIVE_DEFAULT_EXCLUDES: readonly string[] = [
  '.git/',
  'node_modules/',
  '.venv/',
  'venv/',
  '__pycache__/',
  '.mypy_cache/',
  '.pytest_cache/',
  '.ruff_cache/',
  'dist/',
  'build/',
  '.next/',
  'target/',
  '*.pyc',
];

/** Files inside any `.git` directory that are never archived (they may hold credentials). */
export const WORKSPACE_ARCHIVE_GIT_SECRETS: readonly string[] = [
  'config',
  'config.worktree',
  'credentials',
  '.git-credentials',
  'FETCH_HEAD',
];

/** How deep below `path` the one git repository to archive is looked for. */
export const WORKSPACE_ARCHIVE_REPOSITORY_DEPTH = 3;

/** Most `exclude` globs one request may carry; more is 400 naming `exclude`. */
export const MAX_WORKSPACE_ARCHIVE_EXCLUDES = 100;

/** Longest `exclude` glob, in characters; longer is 400 naming `exclude`. */
export const MAX_WORKSPACE_ARCHIVE_EXCLUDE_LENGTH = 256;

/** Longest `base_ref`, in characters; longer is 400 naming `base_ref`. */
export const MAX_WORKSPACE_ARCHIVE_BASE_REF_LENGTH = 256;
