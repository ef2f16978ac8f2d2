import path from 'node:path';
import {
  DEFAULT_MAX_ARCHIVE_ENTRIES,
  MAX_ACTION_TIMEOUT_SECONDS,
  MAX_ALLOW_HOST_LENGTH,
  MAX_ALLOW_HOSTS,
} from '@agent-workspace/protocol';
import type { RuntimePlugin } from '@agent-workspace/runtime-plugins';
import { z } from 'zod';
import {
  DEFAULT_CONVERSATION_MAX_DISK_BYTES,
  DEFAULT_CONVERSATION_MAX_EVENT_BYTES,
  DEFAULT_CONVERSATION_MAX_MEMORY_BYTES,
  DEFAULT_MAX_LOADED_CONVERSATIONS,
  MIN_CONVERSATION_MAX_EVENT_BYTES,
} from './conversations/conversation-service-options.js';

/** Log levels of the server's structured (pino) logger. */
export const logLevelSchema = z.enum([
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
]);

/** Options of {@link createAgentServer}; every field has a default. */
export const agentServerOptionsSchema = z
  .object({
    /** Interface to listen on. Default `127.0.0.1`. */
    host: z.string().min(1).default('127.0.0.1'),
    /** Port to listen on; `0` picks a free one. Default 8000. */
    port: z.number().int().min(0).max(65_535).default(8000),
    /** Directory commands run in by default and relative paths resolve against. Default `process.cwd()`. */
    workingDir: z.string().min(1).optional(),
    /** Accepted session API keys; empty means no authentication. */
    sessionApiKeys: z.array(z.string().min(1)).default([]),
    /**
     * SHA-256 digests (64 hex digits) of more accepted session keys, for launchers that must not
     * put the key itself where others can read it (container specs, service definitions).
     */
    sessionApiKeyHashes: z
      .array(z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be a SHA-256 digest: 64 hex digits'))
      .default([]),
    /** Where bash event history is persisted; unset keeps it in memory only. */
    stateDir: z.string().min(1).optional(),
    /**
     * Reject file, git and cwd paths that lead (through `..` or symbolic links, checked race-free)
     * outside `workingDir`, files with more than one hard link, and repositories whose git
     * directory lies outside.
     */
    confineToWorkingDir: z.boolean().default(false),
    /**
     * Run commands and git in a bubblewrap sandbox that sees only `workingDir` (read-write), the
     * system (read-only) and nothing else of the machine; implies `confineToWorkingDir`. Linux only.
     */
    sandbox: z
      .union([
        z.literal(false),
        z.object({
          /** Network access of commands. Default true. Ignored with `allowHosts`. */
          network: z.boolean().default(true),
          /**
           * Egress allow-list (`host` or `host:port`): sandboxed code (commands, the kernel, the
           * browser, conversation tools) gets a network namespace whose only way out is the
           * server's HTTP/HTTPS proxy, which lets through these hosts alone and logs each refusal.
           */
          allowHosts: z
            .array(z.string().min(1).max(MAX_ALLOW_HOST_LENGTH))
            .max(MAX_ALLOW_HOSTS)
            .optional(),
          /** More host paths commands see read-only. */
          readOnlyPaths: z.array(z.string().min(1)).default([]),
          /** More host paths commands see read-write. */
          writablePaths: z.array(z.string().min(1)).default([]),
        }),
      ])
      .default(false),
    /** Largest accepted upload in bytes; larger ones get 413. Default 1 GiB. */
    maxUploadBytes: z
      .number()
      .int()
      .positive()
      .default(1024 ** 3),
    /**
     * Most entries one extracted directory archive may hold (`POST /api/workspace/directory_archive`); more get
     * 413. Default `DEFAULT_MAX_ARCHIVE_ENTRIES` (1 000 000). Its content bytes count against
     * `maxUploadBytes`.
     */
    maxArchiveEntries: z.number().int().positive().default(DEFAULT_MAX_ARCHIVE_ENTRIES),
    /**
     * Most open client connections; past it the oldest idle one is closed (the new one when all
     * are busy). Default from `RLIMIT_NOFILE`: `min(1000, max(16, (soft limit - 64) / 2))`.
     */
    maxConnections: z.number().int().positive().optional(),
    /** Most commands running at once; more get 429 with `Retry-After`. Default 200. */
    maxConcurrentCommands: z.number().int().positive().default(200),
    /** Longest a whole request (headers and body) may take to arrive, in seconds. Default 600. */
    requestTimeoutSeconds: z.number().positive().default(600),
    /** Longest a request body may stall (no byte received), in seconds; then 408. Default 30. */
    bodyIdleTimeoutSeconds: z.number().positive().default(30),
    /**
     * Slowest average rate a request body may arrive at, judged once `bodyIdleTimeoutSeconds`
     * have passed, in bytes per second; slower bodies get 408. Default 1024.
     */
    minBodyBytesPerSecond: z.number().nonnegative().default(1024),
    /**
     * How long a command runs on once nobody follows it (its `execute_bash_command` client or
     * exec connection went away and none attached), in seconds; detached commands are exempt.
     * Default 60.
     */
    orphanedCommandGraceSeconds: z.number().nonnegative().default(60),
    /** Upper bound on one command's retained event bytes; its oldest outputs go first. Default 16 MiB. */
    maxCommandHistoryBytes: z
      .number()
      .int()
      .positive()
      .default(16 * 1024 ** 2),
    /**
     * Where the server journals what it owns (temporary files; its instance, to find its processes)
     * so that the next start cleans up after a crash. Default `$XDG_RUNTIME_DIR/agent-server` or
     * `<tmp>/agent-server-<uid>`, created with mode 0700.
     */
    runtimeDir: z.string().min(1).optional(),
    /** Bash events older than this are dropped. Default one day. */
    bashEventRetentionSeconds: z
      .number()
      .positive()
      .default(24 * 60 * 60),
    /** Upper bound on retained bash event payload bytes; the oldest go first. Default 256 MiB. */
    bashEventMaxBytes: z
      .number()
      .int()
      .positive()
      .default(256 * 1024 ** 2),
    /**
     * Deepest level below the directory `GET /api/git/changes` is asked about that is searched for
     * nested repositories, in path segments. Default core's: 6.
     */
    gitSearchMaxDepth: z.number().int().nonnegative().optional(),
    /** Most nested repositories one `GET /api/git/changes` scans. Default core's: 100. */
    gitSearchMaxRepositories: z.number().int().nonnegative().optional(),
    /**
     * Most directories one `GET /api/git/changes` reads while looking for nested repositories.
     * Default core's: 20 000.
     */
    gitSearchMaxDirectories: z.number().int().nonnegative().optional(),
    /**
     * Longest one `GET /api/git/changes` searches for and scans nested repositories, in seconds;
     * then it answers with what it found. Default core's: 5.
     */
    gitSearchTimeoutSeconds: z.number().positive().optional(),
    /** Extra CORS origins besides localhost and 127.0.0.1. */
    allowCorsOrigins: z.array(z.string().min(1)).default([]),
    /**
     * Runtime plugins to start in the background, by name (`browser`, `python`, a registered name
     * or an installed package exporting a plugin) or as instances. See `/server_info` `plugins`.
     */
    plugins: z
      .array(
        z.union([
          z.string().min(1),
          z.custom<RuntimePlugin>(
            (value) => typeof value === 'object' && value !== null && 'name' in value,
            'must be a plugin name or a RuntimePlugin',
          ),
        ]),
      )
      .default([]),
    /** Longest a plugin may take to start, and an action waits for it, in seconds. Default 120. */
    pluginStartTimeoutSeconds: z.number().positive().default(120),
    /**
     * Time an `/execute_action` action may take when it names no `timeout`, in seconds. Default
     * 120; at most an hour, like an action's own `timeout`.
     */
    actionTimeoutSeconds: z.number().positive().max(MAX_ACTION_TIMEOUT_SECONDS).default(120),
    /**
     * Most resident memory one process tree (a command, the Python kernel, the browser) may use, in
     * bytes; past it the tree is killed and its caller told why, before the machine's out-of-memory
     * killer picks the server. Unset: trees are measured (see `/server_info` `resources`), never
     * killed.
     */
    processTreeMemoryLimitBytes: z.number().int().positive().optional(),
    /**
     * Largest single conversation event, in bytes; a larger one (a huge observation) has its
     * longest strings cut around a marker saying how much. Default 256 KiB, at least 16 KiB.
     */
    conversationMaxEventBytes: z
      .number()
      .int()
      .min(MIN_CONVERSATION_MAX_EVENT_BYTES)
      .default(DEFAULT_CONVERSATION_MAX_EVENT_BYTES),
    /**
     * Event bytes a loaded conversation keeps in memory (its newest events, what its agent is
     * shown). Default 8 MiB, at least `conversationMaxEventBytes`.
     */
    conversationMaxMemoryBytes: z
      .number()
      .int()
      .positive()
      .default(DEFAULT_CONVERSATION_MAX_MEMORY_BYTES),
    /**
     * Bytes of a conversation's event file; past it the oldest events are dropped (the file is
     * compacted to three quarters). Default 64 MiB, at least `conversationMaxMemoryBytes`.
     */
    conversationMaxDiskBytes: z
      .number()
      .int()
      .positive()
      .default(DEFAULT_CONVERSATION_MAX_DISK_BYTES),
    /**
     * Most idle persisted conversations kept loaded; past it the least recently used are unloaded
     * and loaded again on use. Default 32.
     */
    maxLoadedConversations: z.number().int().positive().default(DEFAULT_MAX_LOADED_CONVERSATIONS),
    /**
     * Start dormant (OpenHands' `deferred_init`, for warm pools): the `/api` routes,
     * `/execute_action` and the websockets answer 503 until `POST /api/init` delivers the
     * session keys; `GET /api/init` tells the state.
     */
    deferInit: z.boolean().default(false),
    /** Announce and serve our protocol extensions; `false` behaves like a plain OpenHands server. */
    extensions: z.boolean().default(true),
    /**
     * Serve the web page (`@agent-workspace/ui`) at `/`; `false` answers `/` with the server info,
     * as OpenHands does without static files. Default `true`.
     */
    ui: z.boolean().default(true),
    logLevel: logLevelSchema.default('info'),
  })
  .refine((options) => options.conversationMaxMemoryBytes >= options.conversationMaxEventBytes, {
    message: 'must be at least conversationMaxEventBytes',
    path: ['conversationMaxMemoryBytes'],
  })
  .refine((options) => options.conversationMaxDiskBytes >= options.conversationMaxMemoryBytes, {
    message: 'must be at least conversationMaxMemoryBytes',
    path: ['conversationMaxDiskBytes'],
  });

/** Options of {@link createAgentServer} as callers write them. */
export type AgentServerOptions = z.input<typeof agentServerOptionsSchema>;

/** Options after defaults are applied; `workingDir` is absolute. */
export type ResolvedAgentServerOptions = z.output<typeof agentServerOptionsSchema> & {
  workingDir: string;
};

/**
 * Applies defaults and validates; throws a `ZodError` naming the bad field. A sandbox turns
 * confinement on.
 */
export function resolveAgentServerOptions(
  options: AgentServerOptions = {},
): ResolvedAgentServerOptions {
  const parsed = agentServerOptionsSchema.parse(options);
  return {
    ...parsed,
    workingDir: path.resolve(parsed.workingDir ?? process.cwd()),
    confineToWorkingDir: parsed.confineToWorkingDir || parsed.sandbox !== false,
  };
}
