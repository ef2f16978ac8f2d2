import { EXEC_STREAM_PATH } from './exec-stream.js';
import { FILE_WATCH_SOCKET_PATH } from './file-watch.js';

/** Header carrying the session API key on HTTP requests (matched case-insensitively). */
export const SESSION_API_KEY_HEADER = 'X-Session-API-Key';

/** The deprecated query parameter a websocket upgrade may carry its session key in. */
export const SESSION_API_KEY_QUERY_PARAMETER = 'session_api_key';

/**
 * Path prefixes the agent-server's routes are grouped under: every route of a group (in
 * {@link AGENT_SERVER_ROUTES} and `FILE_BROWSER_ROUTES`) is the prefix or starts with it and a
 * `/`. The agent-server serves each group from an app made on the group's first request.
 */
export const AGENT_SERVER_ROUTE_PREFIXES = {
  file: '/api/file',
  git: '/api/git',
  conversations: '/api/conversations',
} as const;

/**
 * Paths of the agent-server routes, the one spelling client and server share. `bashEvent` is a
 * route pattern (`:event_id`); clients build the path with {@link bashEventPath}.
 */
export const AGENT_SERVER_ROUTES = {
  /** Liveness: 200 as soon as the server listens. */
  alive: '/alive',
  health: '/health',
  /** 503 until the server has restored its state, then 200. */
  ready: '/ready',
  serverInfo: '/server_info',
  /** Deferred init: `GET` tells the state, `POST` configures a dormant server (OpenHands). */
  init: '/api/init',
  /** The tool names a conversation's agent may list (OpenHands; the trailing slash is theirs). */
  tools: '/api/tools/',
  /** OpenHands' action execution (`EXECUTE_ACTION_CAPABILITY`): an action in, an observation out. */
  executeAction: '/execute_action',
  startBashCommand: '/api/bash/start_bash_command',
  executeBashCommand: '/api/bash/execute_bash_command',
  searchBashEvents: '/api/bash/bash_events/search',
  bashEvent: '/api/bash/bash_events/:event_id',
  /** Batch get: a GET whose body is a JSON array of ids. */
  bashEventsBatch: '/api/bash/bash_events/',
  /** DELETE clears the history of finished commands. */
  bashEvents: '/api/bash/bash_events',
  fileUpload: '/api/file/upload',
  fileDownload: '/api/file/download',
  /**
   * OpenHands' workspace archive: `GET ?path=&format=git-delta|tar.gz` answers a git patch of the
   * working-tree changes or a gzip tarball with a manifest (see `WORKSPACE_ARCHIVE_FORMATS`).
   */
  fileArchive: '/api/file/archive',
  /**
   * Our extension (`DIRECTORY_ARCHIVE_CAPABILITY`): `GET` streams the directory `?path=` as a
   * tar, `POST` extracts a tar body into it.
   */
  directoryArchive: '/api/workspace/directory_archive',
  gitChanges: '/api/git/changes',
  gitDiff: '/api/git/diff',
  /** OpenHands' commit history of a repository (`?path=&limit=`). */
  gitCommits: '/api/git/commits',
  /** OpenHands' files changed by one commit (`:sha`, hex only); clients use {@link gitCommitChangesPath}. */
  gitCommitChanges: '/api/git/commits/:sha/changes',
  /** Our extension (`WORKSPACE_IDENTITY_CAPABILITY`): identity of the server's working directory. */
  workspaceIdentity: '/api/workspace/identity',
  conversations: AGENT_SERVER_ROUTE_PREFIXES.conversations,
  searchConversations: '/api/conversations/search',
  countConversations: '/api/conversations/count',
  conversation: '/api/conversations/:conversation_id',
  runConversation: '/api/conversations/:conversation_id/run',
  pauseConversation: '/api/conversations/:conversation_id/pause',
  interruptConversation: '/api/conversations/:conversation_id/interrupt',
  /** OpenHands: `{"policy": {"kind": "NeverConfirm"|"AlwaysConfirm"|"ConfirmRisky", ...}}`. */
  conversationConfirmationPolicy: '/api/conversations/:conversation_id/confirmation_policy',
  /** OpenHands: `{"security_analyzer": {"kind": ...} | null}`. */
  conversationSecurityAnalyzer: '/api/conversations/:conversation_id/security_analyzer',
  /** OpenHands: `{"accept": bool, "reason"?: str}` for the actions waiting for confirmation. */
  respondToConfirmation: '/api/conversations/:conversation_id/events/respond_to_confirmation',
  condenseConversation: '/api/conversations/:conversation_id/condense',
  forkConversation: '/api/conversations/:conversation_id/fork',
  /** OpenHands' side question: `{"question"}` → `{"response"}`, no tools run, no event recorded. */
  askAgent: '/api/conversations/:conversation_id/ask_agent',
  /** OpenHands' model switch: `{"llm": LLM}`; the next model call uses it. */
  switchLlm: '/api/conversations/:conversation_id/switch_llm',
  conversationEvents: '/api/conversations/:conversation_id/events',
  searchConversationEvents: '/api/conversations/:conversation_id/events/search',
  countConversationEvents: '/api/conversations/:conversation_id/events/count',
  conversationEvent: '/api/conversations/:conversation_id/events/:event_id',
  agentFinalResponse: '/api/conversations/:conversation_id/agent_final_response',
  /** OpenHands' `POST` of secrets given to the agent's commands as environment variables. */
  conversationSecrets: '/api/conversations/:conversation_id/secrets',
  /** Events socket of one conversation (`:conversation_id`). */
  conversationEventsSocket: '/sockets/events/:conversation_id',
  bashEventsSocket: '/sockets/bash-events',
  execSocket: EXEC_STREAM_PATH,
  /** Our extension (`FILE_WATCH_CAPABILITY`): changes under a directory, `?path=&recursive=`. */
  fileWatchSocket: FILE_WATCH_SOCKET_PATH,
} as const;

/** The path of one bash event. */
export function bashEventPath(eventId: string): string {
  return AGENT_SERVER_ROUTES.bashEvent.replace(':event_id', encodeURIComponent(eventId));
}

/** The path of the changes of commit `sha`. */
export function gitCommitChangesPath(sha: string): string {
  return AGENT_SERVER_ROUTES.gitCommitChanges.replace(':sha', encodeURIComponent(sha));
}

/** A conversation route pattern with its `:conversation_id` (and `:event_id`) filled in. */
export function conversationPath(route: string, conversationId: string, eventId?: string): string {
  let result = route.replace(':conversation_id', encodeURIComponent(conversationId));
  if (eventId !== undefined) result = result.replace(':event_id', encodeURIComponent(eventId));
  return result;
}
