import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { logLevelSchema } from '@agent-workspace/agent-server/http';
import { WorkspaceError } from '@agent-workspace/core';
import { EgressAllowList } from '@agent-workspace/core/internal';
import { MAX_ALLOW_HOSTS, MAX_RUNTIME_VOLUME_PATH_LENGTH } from '@agent-workspace/protocol';
import { z } from 'zod';
import type { RuntimeBackend } from '../backend/runtime-backend.js';
import { allowListProblem } from './allow-list-problem.js';
import { warmPoolOptionsSchema } from './warm-pool-options.js';

/**
 * Defaults of the server options: `createRuntimeApiServer` applies them to what is unset, and the
 * `runtime-api` command leaves unset what no flag sets (its help shows them from here).
 */
export const RUNTIME_API_SERVER_DEFAULTS = Object.freeze({
  /** Interface the server listens on: loopback only. */
  host: '127.0.0.1',
  /** Port of the Runtime API server. */
  port: 3000,
  /** Most sessions of the backend's namespace; a start past it gets 429. */
  maxSessions: 20,
  /** Most snapshots of the backend's namespace; a snapshot past it gets 429. */
  maxSnapshots: 50,
  /** What idle reaping does to an idle session. */
  idleAction: 'stop',
  /** Seconds between two reaping passes. */
  idleCheckIntervalSeconds: 30,
  /** Seconds a started session may go without a client fetching or using it. */
  unacknowledgedStartGraceSeconds: 300,
  /** Longest one agent-server probe (`/health`, `/server_info`) may take, in milliseconds. */
  readinessTimeoutMs: 1000,
  /** Longest a whole request (headers and body) may take to arrive, in seconds. */
  requestTimeoutSeconds: 30,
  /** Most open client connections. */
  maxConnections: 1000,
  /** pino level of the JSON log. */
  logLevel: 'info',
} as const);

/** Most {@link runtimeApiServerOptionsSchema} `allowedBindSources`. */
export const MAX_ALLOWED_BIND_SOURCES = 64;

/**
 * `dir` made absolute and its symlinks resolved, or why it cannot be a bind source (missing,
 * not a directory, unreadable).
 */
function bindSourceProblem(dir: string): { resolved: string } | string {
  try {
    const resolved = realpathSync(path.resolve(dir));
    if (!statSync(resolved).isDirectory()) return `${dir} is not a directory`;
    return { resolved };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return `${dir} must be an existing directory (${code ?? String(error)})`;
  }
}

/** Shortest accepted Runtime API key, in characters. */
export const MIN_API_KEY_LENGTH = 16;
/** Shortest accepted session key secret, in characters. */
export const MIN_SESSION_KEY_SECRET_LENGTH = 32;

/** Log levels of the server's structured (pino) logger: the agent-server's. */
export const runtimeApiLogLevelSchema = logLevelSchema;

const backendMethods = [
  'start',
  'get',
  'getByRuntimeId',
  'list',
  'pause',
  'resume',
  'stop',
  'logs',
];

/** Options of `createRuntimeApiServer`; defaults are {@link RUNTIME_API_SERVER_DEFAULTS}. */
export const runtimeApiServerOptionsSchema = z
  .object({
    /**
     * Accepted `X-API-Key` values (at least one, each at least {@link MIN_API_KEY_LENGTH}
     * characters). Compared in constant time; never logged.
     */
    apiKeys: z.array(z.string().min(MIN_API_KEY_LENGTH)).min(1),
    /**
     * Secret the session keys are derived from (HMAC-SHA256 of session id and a random nonce kept
     * in a label); at least {@link MIN_SESSION_KEY_SECRET_LENGTH} characters. A restarted server
     * with the same secret derives the same keys; nobody else can.
     */
    sessionKeySecret: z.string().min(MIN_SESSION_KEY_SECRET_LENGTH),
    /** Where the sandboxes run (its namespace scopes every session this server sees). */
    backend: z.custom<RuntimeBackend>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        backendMethods.every(
          (method) => typeof (value as Record<string, unknown>)[method] === 'function',
        ),
      'must be a RuntimeBackend',
    ),
    /** Agent-server images `/start` may ask for (exact references); at least one. */
    images: z.array(z.string().min(1)).min(1),
    /** Interface to listen on. Default `RUNTIME_API_SERVER_DEFAULTS.host`. */
    host: z.string().min(1).default(RUNTIME_API_SERVER_DEFAULTS.host),
    /** Port to listen on; `0` picks a free one. Default `RUNTIME_API_SERVER_DEFAULTS.port`. */
    port: z.number().int().min(0).max(65_535).default(RUNTIME_API_SERVER_DEFAULTS.port),
    /**
     * Most sessions the backend's namespace may hold (counted from `backend.list()`, whatever
     * their state); a start past it gets 429 with `Retry-After`. Default `RUNTIME_API_SERVER_DEFAULTS.maxSessions`.
     */
    maxSessions: z.number().int().positive().default(RUNTIME_API_SERVER_DEFAULTS.maxSessions),
    /**
     * Most snapshots the backend's namespace may hold (counted from the backend's list before
     * each `POST /snapshots`, which this server takes one at a time); a snapshot past it gets
     * 429 until one is removed. Default `RUNTIME_API_SERVER_DEFAULTS.maxSnapshots`.
     */
    maxSnapshots: z.number().int().positive().default(RUNTIME_API_SERVER_DEFAULTS.maxSnapshots),
    /** Base limits of one sandbox, multiplied by the session's `resource_factor`. Default none. */
    resources: z
      .object({
        /** Memory limit in bytes. */
        memoryBytes: z.number().int().positive().optional(),
        /** CPUs, fractions allowed. */
        cpus: z.number().positive().optional(),
        /** Most processes and threads. */
        pidsLimit: z.number().int().positive().optional(),
      })
      .strict()
      .default({}),
    /**
     * Seconds a running session's agent-server may report as `idle_time` before idle reaping
     * stops or pauses it; unset turns reaping off.
     */
    idleTimeoutSeconds: z.number().positive().optional(),
    /** What idle reaping does to an idle session. Default `RUNTIME_API_SERVER_DEFAULTS.idleAction`. */
    idleAction: z.enum(['stop', 'pause']).default(RUNTIME_API_SERVER_DEFAULTS.idleAction),
    /**
     * Seconds between reaping passes (idle sessions, unacknowledged starts). Default
     * `RUNTIME_API_SERVER_DEFAULTS.idleCheckIntervalSeconds`.
     */
    idleCheckIntervalSeconds: z
      .number()
      .positive()
      .default(RUNTIME_API_SERVER_DEFAULTS.idleCheckIntervalSeconds),
    /**
     * Seconds a session started cold may run without a client fetching it (`GET
     * /sessions/{id}`, another `/start` of it, `/resume`) or using its agent-server; then a
     * reaping pass stops it: its `/start` answer never reached anyone (the server was killed
     * mid-start, the client went away). Counted from its start, and for its agent-server from
     * when that came up. Default `RUNTIME_API_SERVER_DEFAULTS.unacknowledgedStartGraceSeconds`.
     */
    unacknowledgedStartGraceSeconds: z
      .number()
      .positive()
      .default(RUNTIME_API_SERVER_DEFAULTS.unacknowledgedStartGraceSeconds),
    /**
     * Longest one probe of a session's agent-server (`/health` for `pod_status`, `/server_info`
     * for reaping) may take, in milliseconds. Default `RUNTIME_API_SERVER_DEFAULTS.readinessTimeoutMs`.
     */
    readinessTimeoutMs: z
      .number()
      .int()
      .positive()
      .default(RUNTIME_API_SERVER_DEFAULTS.readinessTimeoutMs),
    /**
     * Longest a whole request (headers and body) may take to arrive, in seconds; a slower one gets
     * 408 and its connection closed. Default `RUNTIME_API_SERVER_DEFAULTS.requestTimeoutSeconds`.
     */
    requestTimeoutSeconds: z
      .number()
      .positive()
      .default(RUNTIME_API_SERVER_DEFAULTS.requestTimeoutSeconds),
    /** Most open client connections; more are closed at once. Default `RUNTIME_API_SERVER_DEFAULTS.maxConnections`. */
    maxConnections: z.number().int().positive().default(RUNTIME_API_SERVER_DEFAULTS.maxConnections),
    /** pino level of the JSON log on standard output. Default `info`. */
    logLevel: runtimeApiLogLevelSchema.default(RUNTIME_API_SERVER_DEFAULTS.logLevel),
    /**
     * Warm pools: per image, sandboxes kept started and ready that a matching `/start` claims at
     * once (see `WarmPool`). Each image must be one of `images`; at most `MAX_WARM_SANDBOXES`
     * sandboxes in all; the backend must support warm sandboxes (Docker does, Swarm does not).
     * Warm sandboxes are no sessions: `maxSessions` does not count them. Default none.
     */
    warmPool: warmPoolOptionsSchema,
    /**
     * Egress allow-list of every session (`host` or `host:port`, at most 256): each session's
     * agent-server runs the agent's commands, kernel and browser in its command sandbox, and they
     * reach only these hosts, through its proxy. A `/start` may narrow it with `allow_hosts`,
     * never widen it. Needs a backend that can sandbox (Docker). Default none: sessions are not
     * sandboxed unless their `/start` asks for an allow-list.
     */
    allowHosts: z.array(z.string()).max(MAX_ALLOW_HOSTS).optional(),
    /**
     * Host directories a `/start` may bind-mount (`volumes` entries of type `bind`), at most
     * {@link MAX_ALLOWED_BIND_SOURCES}. Each is made absolute (against the working directory),
     * its symlinks resolved (`realpath`) once, here, and must be an existing directory. A bind
     * `source` must equal one of them exactly (after normalisation), never name a path below
     * one: Docker resolves the source string again when it mounts, so a sub-path the client
     * chose could be swapped for a symlink (to anywhere on the host) between this server's check
     * and the mount, while a directory the operator chose is not the client's to change. The
     * paths are the engine's host's: with a remote engine, list directories that exist on both.
     * Default none: a bind is refused.
     */
    allowedBindSources: z
      .array(z.string().min(1).max(MAX_RUNTIME_VOLUME_PATH_LENGTH))
      .max(MAX_ALLOWED_BIND_SOURCES)
      .default([])
      .transform((dirs, context) =>
        dirs.map((dir, index) => {
          const problem = bindSourceProblem(dir);
          if (typeof problem === 'object') return problem.resolved;
          context.addIssue({ code: 'custom', path: [index], message: problem });
          return dir;
        }),
      ),
  })
  .superRefine((options, context) => {
    if (options.allowHosts !== undefined) {
      try {
        EgressAllowList.parse(options.allowHosts, 'allowHosts');
      } catch (error) {
        const { index, reason } = allowListProblem(error, 'allowHosts');
        const path = index === undefined ? ['allowHosts'] : ['allowHosts', index];
        context.addIssue({ code: 'custom', path, message: reason });
      }
      if (!options.backend.sandboxes) {
        context.addIssue({
          code: 'custom',
          path: ['allowHosts'],
          message: `the ${options.backend.kind} backend cannot sandbox sessions (a service cannot take the seccomp profile and unmasked /proc bubblewrap needs); use the docker backend`,
        });
      }
    }
    options.warmPool.forEach((entry, index) => {
      if (!options.images.includes(entry.image)) {
        context.addIssue({
          code: 'custom',
          path: ['warmPool', index, 'image'],
          message: `${entry.image} is not one of images`,
        });
      }
    });
    if (options.warmPool.length > 0 && !options.backend.warmSandboxes) {
      context.addIssue({
        code: 'custom',
        path: ['warmPool'],
        message: `the ${options.backend.kind} backend cannot keep warm sandboxes: it has no way to bind a started sandbox to a session atomically and durably (a Swarm service cannot be renamed); use the docker backend or no warm pool`,
      });
    }
  });

/** Options of `createRuntimeApiServer` as callers write them. */
export type RuntimeApiServerOptions = z.input<typeof runtimeApiServerOptionsSchema>;

/** Options after defaults are applied. */
export type ResolvedRuntimeApiServerOptions = z.output<typeof runtimeApiServerOptionsSchema>;

/**
 * Applies defaults and validates. A bad option is an `INVALID_CONFIG` error naming the field
 * (never its value: some are secrets).
 */
export function resolveRuntimeApiServerOptions(
  options: RuntimeApiServerOptions,
): ResolvedRuntimeApiServerOptions {
  const parsed = runtimeApiServerOptionsSchema.safeParse(options);
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.map((issue) => issue.path.join('.') || '(options)');
  const issues = parsed.error.issues
    .map((issue, index) => `${fields[index]}: ${issue.message}`)
    .join('; ');
  throw new WorkspaceError({
    code: 'INVALID_CONFIG',
    message: `invalid Runtime API server options: ${issues}`,
    details: { fields },
  });
}
