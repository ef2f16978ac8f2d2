/**
 * The protocol without its schemas: route paths, the session header, websocket close codes, the
 * error-code tables and the command-input limits with their plain checks. It loads no zod, so a
 * client that needs only these (core's `LocalWorkspace`) starts fast; the main entry exports
 * all of it too.
 *
 * @packageDocumentation
 */

export {
  MAX_ACTION_FILE_TEXT_CHARS,
  MAX_ACTION_NAME_LENGTH,
  MAX_ACTION_TIMEOUT_SECONDS,
  MAX_BROWSE_URL_CHARS,
  MAX_BROWSER_ACTIONS_CHARS,
  MAX_IPYTHON_CODE_CHARS,
} from './actions/action-limits.js';
export type { BashErrorCode } from './errors/bash-error-code.js';
export type { ExecErrorCode } from './errors/exec-error-code.js';
export type { WorkspaceErrorCode } from './errors/workspace-error-code.js';
export {
  EXEC_ERROR_OUTCOMES,
  WORKSPACE_ERROR_WIRE,
  type WorkspaceErrorWire,
} from './errors/workspace-error-wire.js';
export {
  type CommandInputProblem,
  checkCommandEnvironment,
  checkCommandText,
  checkEnvironmentName,
  MAX_COMMAND_BYTES,
  MAX_COMMAND_TIMEOUT_SECONDS,
  MAX_ENV_BYTES,
  MAX_ENV_VARIABLES,
  MAX_PATH_BYTES,
} from './limits/command-input-limits.js';
export { MAX_ALLOW_HOST_LENGTH, MAX_ALLOW_HOSTS } from './limits/egress-limits.js';
export {
  DEFAULT_GIT_COMMITS_LIMIT,
  GIT_COMMIT_CHANGES_TRUNCATION,
  GIT_SHA_PATTERN,
  MAX_GIT_COMMIT_AUTHOR_CHARS,
  MAX_GIT_COMMIT_CHANGES,
  MAX_GIT_COMMIT_SUBJECT_CHARS,
  MAX_GIT_COMMITS_LIMIT,
} from './limits/git-history-limits.js';
export { utf8ByteLength } from './limits/utf8-byte-length.js';
export { AGENT_SERVER_LISTENING_EVENT } from './wire/agent-server-ready.js';
export {
  AGENT_SERVER_ROUTE_PREFIXES,
  AGENT_SERVER_ROUTES,
  bashEventPath,
  conversationPath,
  gitCommitChangesPath,
  SESSION_API_KEY_HEADER,
  SESSION_API_KEY_QUERY_PARAMETER,
} from './wire/agent-server-routes.js';
export {
  DEFAULT_MAX_ARCHIVE_ENTRIES,
  DIRECTORY_ARCHIVE_CAPABILITY,
  DIRECTORY_ARCHIVE_MEDIA_TYPE,
  MAX_ARCHIVE_DEPTH,
  MAX_ARCHIVE_NAME_BYTES,
  MAX_ARCHIVE_PATH_BYTES,
} from './wire/directory-archive.js';
export {
  DEFAULT_DIRECTORY_LISTING_PAGE_LIMIT,
  DIRECTORY_LISTING_CAPABILITY,
  DIRECTORY_LISTING_ROUTE,
  MAX_DIRECTORY_LISTING_PAGE_ID_CHARS,
  MAX_DIRECTORY_LISTING_PAGE_LIMIT,
  MAX_DIRECTORY_LISTING_SCANNED_ENTRIES,
} from './wire/directory-listing.js';
export { EXEC_STREAM_CAPABILITY, EXEC_STREAM_PATH } from './wire/exec-stream.js';
export {
  FILE_BROWSER_ROUTES,
  MAX_HOME_FAVORITES,
  MAX_SUBDIRS_PAGE_ID_CHARS,
  MAX_SUBDIRS_PAGE_LIMIT,
  MAX_SUBDIRS_SCANNED_ENTRIES,
  MAX_TRAJECTORY_DEPTH,
  MAX_TRAJECTORY_ENTRIES,
  MAX_TRAJECTORY_JSON_BYTES,
  MAX_TRAJECTORY_LINE_BYTES,
  REDACTED_SECRET_VALUE,
  SUBDIRS_TRUNCATED_HEADER,
  TRAJECTORY_SECRET_FIELDS,
  trajectoryPath,
} from './wire/file-browser.js';
export {
  DEFAULT_MAX_FILE_EVENTS_PER_SECOND,
  DEFAULT_MAX_QUEUED_FILE_EVENTS,
  FILE_WATCH_CAPABILITY,
  FILE_WATCH_SOCKET_PATH,
  MAX_FILE_EVENTS_PER_SECOND,
  MAX_FILE_WATCH_SOCKETS,
  MAX_QUEUED_FILE_EVENTS,
} from './wire/file-watch.js';
export {
  GIT_CHANGES_TRUNCATED_HEADER,
  GIT_CHANGES_TRUNCATIONS,
  type GitChangesTruncation,
} from './wire/git-changes-truncation.js';
export {
  PORT_PROXY_CAPABILITY,
  PORT_PROXY_HEADERS_TIMEOUT_MS,
  PORT_PROXY_ROUTE_PREFIX,
  portProxyPath,
} from './wire/port-proxy.js';
export {
  MAX_RUNTIME_SESSION_ID_LENGTH,
  MAX_RUNTIME_SNAPSHOT_NAME_LENGTH,
  RUNTIME_API_KEY_HEADER,
  RUNTIME_API_ROUTES,
  RUNTIME_RESOURCE_FACTORS,
  runtimeSessionPath,
  runtimeSnapshotPath,
} from './wire/runtime-api-routes.js';
export {
  EXECUTE_ACTION_CAPABILITY,
  runtimePluginCapability,
} from './wire/runtime-plugin-capabilities.js';
export { SOCKET_CLOSE_CODES } from './wire/socket-close-codes.js';
export {
  MAX_WORKSPACE_ARCHIVE_BASE_REF_LENGTH,
  MAX_WORKSPACE_ARCHIVE_EXCLUDE_LENGTH,
  MAX_WORKSPACE_ARCHIVE_EXCLUDES,
  WORKSPACE_ARCHIVE_DEFAULT_EXCLUDES,
  WORKSPACE_ARCHIVE_FORMATS,
  WORKSPACE_ARCHIVE_GIT_SECRETS,
  WORKSPACE_ARCHIVE_MANIFEST_NAME,
  WORKSPACE_ARCHIVE_MEDIA_TYPES,
  WORKSPACE_ARCHIVE_REPOSITORY_DEPTH,
  WORKSPACE_ARCHIVE_SUFFIXES,
  type WorkspaceArchiveFormat,
} from './wire/workspace-archive.js';
export { WORKSPACE_IDENTITY_CAPABILITY } from './wire/workspace-identity-capability.js';
export { WORKSPACE_METRICS_CAPABILITY, WORKSPACE_METRICS_ROUTE } from './wire/workspace-metrics.js';
