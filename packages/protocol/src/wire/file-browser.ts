/**
 * OpenHands' 2026 file-browser routes (`/api/file/create_directory`, `home`, `search_subdirs`,
 * `download-trajectory/{conversation_id}`) and the limits our agent-server holds them to.
 */
export const FILE_BROWSER_ROUTES = {
  /** `POST ?path=`: creates a directory and its missing parents (idempotent). */
  createDirectory: '/api/file/create_directory',
  /** `GET ?include_hidden=`: the home directory, its top-level directories and the roots. */
  home: '/api/file/home',
  /** `GET ?path=&page_id=&limit=&include_hidden=`: a page of the subdirectories of `path`. */
  searchSubdirs: '/api/file/search_subdirs',
  /** `GET`: a zip of the conversation's persisted files, secrets redacted. */
  downloadTrajectory: '/api/file/download-trajectory/:conversation_id',
} as const;

/** The trajectory download path of one conversation. */
export function trajectoryPath(conversationId: string): string {
  return FILE_BROWSER_ROUTES.downloadTrajectory.replace(
    ':conversation_id',
    encodeURIComponent(conversationId),
  );
}

/** Largest `limit` of a `search_subdirs` page (OpenHands': 100, also the default). */
export const MAX_SUBDIRS_PAGE_LIMIT = 100;

/** Longest `page_id` of `search_subdirs` (a lowercased entry name, at most 255 bytes on disk). */
export const MAX_SUBDIRS_PAGE_ID_CHARS = 1024;

/**
 * Most directory entries one `search_subdirs` (or the `home` favorites) reads. Past it the
 * listing stops, the entries read so far are sorted and paged, and the response carries
 * {@link SUBDIRS_TRUNCATED_HEADER}.
 */
export const MAX_SUBDIRS_SCANNED_ENTRIES = 50_000;

/** Response header set to `true` when a `search_subdirs` listing stopped at its scan limit. */
export const SUBDIRS_TRUNCATED_HEADER = 'X-Subdirs-Truncated';

/** Most `favorites` of `GET /api/file/home` (OpenHands' limit). */
export const MAX_HOME_FAVORITES = 50;

/**
 * JSON field names whose string values a trajectory zip never carries: OpenHands' LLM secret
 * fields, its settings alias and the session key a workspace record may hold.
 */
export const TRAJECTORY_SECRET_FIELDS: readonly string[] = [
  'api_key',
  'aws_access_key_id',
  'aws_secret_access_key',
  'aws_session_token',
  'llm_api_key',
  'session_api_key',
];

/** What a redacted secret reads as (OpenHands' marker). */
export const REDACTED_SECRET_VALUE = '**********';

/** Most files and directories one trajectory zip holds; the walk stops there. */
export const MAX_TRAJECTORY_ENTRIES = 10_000;

/** Deepest directory level below the conversation's directory a trajectory zip enters. */
export const MAX_TRAJECTORY_DEPTH = 8;

/** Largest `.json` file a trajectory zip parses to redact; a larger one is left out. */
export const MAX_TRAJECTORY_JSON_BYTES = 16 * 1024 * 1024;

/** Longest line of a `.jsonl` file a trajectory zip keeps; a longer one is left out. */
export const MAX_TRAJECTORY_LINE_BYTES = 16 * 1024 * 1024;
