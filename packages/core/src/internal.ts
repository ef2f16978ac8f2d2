/**
 * Primitives the agent-server and the sibling packages of this monorepo (docker, ...) build on:
 * confined path walks, the atomic file writer, the local command runner, the sandbox lifecycle's
 * helpers, the HTTP client of our servers (`HttpServerClient`, `AgentServerClient`) and the
 * signal helpers (`timeoutSignal`, `anySignal`). Not for applications: this entry has no semver promise and may change in any
 * release. Applications, and authors of new workspace types, use `@agent-workspace/core`.
 *
 * @packageDocumentation
 */

export {
  type AllowHost,
  EgressAllowList,
} from './command-sandbox/egress-allow-list.js';
export {
  type ParseWorkspaceOptionsOptions,
  parseWorkspaceOptions,
} from './errors/parse-workspace-options.js';
export { positiveOption } from './errors/positive-option.js';
export { DirectoryHandle, PROC_FD_WALKS } from './fs/directory-handle.js';
export { type FileDestination, locateFileForWrite } from './fs/locate-file-for-write.js';
export { openDirectory } from './fs/open-directory.js';
export { type OpenedFile, openRegularFile } from './fs/open-regular-file.js';
export { type PathErrorReason, type PathSubject, pathError } from './fs/path-error.js';
export {
  MAX_SYMLINK_HOPS,
  PathWalker,
  type PathWalkerOptions,
  type Walk,
  type WalkEnd,
} from './fs/path-walker.js';
export {
  TEMPORARY_FILE_PATTERN,
  TEMPORARY_FILE_SUFFIX,
  type WriteStreamAtomicOptions,
  writeStreamAtomic,
} from './fs/write-stream-atomic.js';
export { assertRepositoryInside } from './git/assert-repository-inside.js';
export { type GitResult, type RunGitOptions, runGit } from './git/run-git.js';
export {
  excludePathspecs,
  type GitDelta,
  type StreamGitDeltaOptions,
  streamGitDelta,
} from './git/stream-git-delta.js';
export { anySignal } from './internal/any-signal.js';
export {
  type ArchiveProblem,
  archiveEntryError,
  archiveProblemOf,
} from './internal/archive/archive-entry-error.js';
export {
  type ArchiveSummary,
  type ExtractArchiveOptions,
  extractArchive,
} from './internal/archive/extract-archive.js';
export {
  type PackDirectoryOptions,
  type PackEntry,
  packDirectory,
} from './internal/archive/pack-directory.js';
export { removeTemporaryEntry } from './internal/archive/remove-temporary-entry.js';
export { Backoff, type BackoffOptions } from './internal/backoff.js';
export {
  type CopyDirectoryTreeOptions,
  type CopyDirectoryTreeResult,
  copyDirectoryTree,
} from './internal/fs/copy-directory-tree.js';
export { isProcessAlive } from './internal/is-process-alive.js';
export { MAX_TIMER_MS } from './internal/max-timer-ms.js';
export {
  type ChildEnvironmentOptions,
  childEnvironment,
  isServerSecretVariable,
} from './internal/process/child-environment.js';
export { findExecutable, SYSTEM_PATH } from './internal/process/find-executable.js';
export { signalProcessGroup } from './internal/process/kill-process-group.js';
export { readSandboxMetrics } from './internal/process/read-sandbox-metrics.js';
export { shellQuote } from './internal/process/shell-quote.js';
export {
  type ChildExit,
  type SpawnChildOptions,
  type SpawnedChild,
  spawnChild,
} from './internal/process/spawn-child.js';
export { joinWebSockets, MAX_PENDING_FRAMES } from './internal/proxy/join-web-sockets.js';
export { type TimeoutSignalOptions, timeoutSignal } from './internal/timeout-signal.js';
export { type CopyFileAtomicOptions, copyFileAtomic } from './local/copy-file-atomic.js';
export { runLocalCommand } from './local/run-local-command.js';
export type { RunLocalCommandOptions } from './local/run-local-command-options.js';
export {
  type LocalCommandHandle,
  type StartLocalCommandOptions,
  startLocalCommand,
} from './local/start-local-command.js';
export {
  type WatchDirectoryTreeOptions,
  watchDirectoryTree,
} from './local/watch-directory-tree.js';
export {
  AgentServerClient,
  type AgentServerClientOptions,
  type AgentServerReply,
  type AgentServerRequest,
} from './remote/agent-server-client.js';
export { type ErrorReplyBody, errorDetail, truncateDetail } from './remote/error-detail.js';
export { HttpServerClient } from './remote/http-server-client.js';
export type {
  HttpServerClientOptions,
  HttpServerKey,
  HttpServerReply,
  HttpServerRequest,
  ReplyParser,
} from './remote/http-server-types.js';
export {
  type HttpStatusErrorOptions,
  httpStatusError,
  REST_REFUSAL_CODES,
  type StatusErrorCode,
} from './remote/http-status-error.js';
export { parseRetryAfter } from './remote/parse-retry-after.js';
export { type TransportErrorOptions, transportError } from './remote/transport-error.js';
export { messageOf, type SandboxErrorOptions, sandboxError } from './sandbox/sandbox-error.js';
export { describeSandboxState, isSandboxGone } from './sandbox/sandbox-state.js';
export {
  type WaitUntilAliveOptions,
  type WaitUntilAliveResult,
  waitUntilAlive,
} from './sandbox/wait-until-alive.js';
