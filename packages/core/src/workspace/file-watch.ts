import {
  DEFAULT_MAX_FILE_EVENTS_PER_SECOND,
  DEFAULT_MAX_QUEUED_FILE_EVENTS,
  MAX_FILE_EVENTS_PER_SECOND,
  MAX_QUEUED_FILE_EVENTS,
} from '@agent-workspace/protocol/constants';
import { invalidArgument } from '../errors/invalid-argument.js';
import type { Workspace } from './workspace.js';

/**
 * What happened to a path, named as E2B's `watchDir` and inotify name it: `create` (it
 * appeared: created, or moved or renamed into place), `write` (its content or metadata
 * changed), `remove` (it disappeared: deleted, or moved or renamed away), and `overflow` (events
 * were dropped because the consumer fell behind: rescan what matters). A rename is a `remove` of
 * the old name and a `create` of the new one, as Node's `fs.watch` reports it.
 */
export type FileWatchEventType = 'create' | 'write' | 'remove' | 'overflow';

/** One change under a watched directory. */
export interface FileWatchEvent {
  type: FileWatchEventType;
  /**
   * POSIX path relative to the watched directory (`src/a.ts`); `''` for `overflow`. Never
   * absolute and never with `..`: events whose path would leave the directory are dropped.
   */
  path: string;
  /** True for a directory, false for anything else; absent when unknown (a `remove`, `overflow`). */
  isDirectory?: boolean;
}

/** Most directories one recursive watcher watches; past it, one `overflow` event says so. */
export const MAX_WATCHED_DIRECTORIES = 4096;

/** Options of {@link FileWatch.watch}. */
export interface FileWatchOptions {
  /** Watch every directory below too (symbolic links are not followed). Default `false`. */
  recursive?: boolean | undefined;
  /** Aborting ends the iteration (no error); aborted before the watch starts: `ABORTED`. */
  signal?: AbortSignal | undefined;
  /**
   * Most events held for a consumer that has not taken them yet, 1 to `MAX_QUEUED_FILE_EVENTS`;
   * default `DEFAULT_MAX_QUEUED_FILE_EVENTS`. Events for a path still queued are merged (the
   * latest wins, but a `write` after a `create` stays a `create`). When the queue is full, new
   * events are dropped and one `overflow` event follows the queued ones; events are accepted
   * again once the consumer has taken it.
   */
  maxQueuedEvents?: number | undefined;
  /**
   * Most events handed to the consumer per second (after a burst of as many), 1 to
   * `MAX_FILE_EVENTS_PER_SECOND`; default `DEFAULT_MAX_FILE_EVENTS_PER_SECOND` (1000). A tree
   * changing faster is not followed event by event: events merge in the queue meanwhile, and past
   * `maxQueuedEvents` an `overflow` says some were dropped. Over a socket the server applies it.
   */
  maxEventsPerSecond?: number | undefined;
}

/**
 * The events of one watch, in order, for one consumer (`for await`). Iteration ends when the
 * watcher is closed, its signal aborts or its workspace closes; it throws a `WorkspaceError`
 * when watching fails (the watched directory or the connection is lost). Leaving a `for await`
 * early closes it.
 */
export interface FileWatcher extends AsyncIterable<FileWatchEvent>, AsyncDisposable {
  /** Stops watching and ends the iteration. Idempotent. */
  close(): Promise<void>;
}

/**
 * Events when files change under a directory (E2B's `watchDir`, Cloudflare's `watch`): local
 * workspaces on Node's `fs.watch`, remote ones over the agent-server's watch socket (`AGENT_SERVER_ROUTES.fileWatchSocket`). A
 * workspace is one when it declares the `fileWatch` capability (found with {@link fileWatchOf}),
 * never by its methods or class.
 */
export interface FileWatch {
  /**
   * Watches the directory `path` (relative paths resolve against `workingDir`) and resolves once
   * watching has begun: every change made after that is seen.
   *
   * @throws WorkspaceError `INVALID_ARGUMENT` naming `path` (empty, not a directory) or an
   * option (`recursive`, `maxQueuedEvents`, `maxEventsPerSecond`, `signal`); `NOT_FOUND` for a missing directory;
   * `FORBIDDEN` outside the workspace's confinement; `RESOURCE_EXHAUSTED` past the workspace's
   * limit on watchers; `ABORTED`; `WORKSPACE_CLOSED`.
   */
  watch(path: string, options?: FileWatchOptions): Promise<FileWatcher>;
}

/**
 * `candidate` as a {@link FileWatch} when it is a workspace that declares the `fileWatch`
 * capability (see `WorkspaceCapabilities`), else `undefined`.
 */
export function fileWatchOf(candidate: unknown): FileWatch | undefined {
  const workspace = candidate as Workspace | null | undefined;
  return workspace?.capabilities?.fileWatch === true
    ? (workspace as Workspace & FileWatch)
    : undefined;
}

/** {@link FileWatchOptions} checked, with their defaults. */
export interface CheckedFileWatchOptions {
  recursive: boolean;
  maxQueuedEvents: number;
  maxEventsPerSecond: number;
  signal: AbortSignal | undefined;
}

/** Checks `options`; `INVALID_ARGUMENT` naming the field that is wrong. */
export function checkFileWatchOptions(options: FileWatchOptions): CheckedFileWatchOptions {
  if (typeof options !== 'object' || options === null) {
    throw invalidArgument('options', 'must be an object');
  }
  const {
    recursive = false,
    maxQueuedEvents = DEFAULT_MAX_QUEUED_FILE_EVENTS,
    maxEventsPerSecond = DEFAULT_MAX_FILE_EVENTS_PER_SECOND,
    signal,
  } = options;
  if (typeof recursive !== 'boolean') throw invalidArgument('recursive', 'must be a boolean');
  checkCount('maxQueuedEvents', maxQueuedEvents, MAX_QUEUED_FILE_EVENTS);
  checkCount('maxEventsPerSecond', maxEventsPerSecond, MAX_FILE_EVENTS_PER_SECOND);
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw invalidArgument('signal', 'must be an AbortSignal');
  }
  return { recursive, maxQueuedEvents, maxEventsPerSecond, signal };
}

function checkCount(field: string, value: number, max: number): void {
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw invalidArgument(field, `must be an integer from 1 to ${max}, got ${String(value)}`);
  }
}
