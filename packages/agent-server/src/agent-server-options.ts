import path from 'node:path';
import { z } from 'zod';

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
export const agentServerOptionsSchema = z.object({
  /** Interface to listen on. Default `127.0.0.1`. */
  host: z.string().min(1).default('127.0.0.1'),
  /** Port to listen on; `0` picks a free one. Default 8000. */
  port: z.number().int().min(0).max(65_535).default(8000),
  /** Directory commands run in by default and relative paths resolve against. Default `process.cwd()`. */
  workingDir: z.string().min(1).optional(),
  /** Accepted session API keys; empty means no authentication. */
  sessionApiKeys: z.array(z.string().min(1)).default([]),
  /** Where bash event history is persisted; unset keeps it in memory only. */
  stateDir: z.string().min(1).optional(),
  /** Reject file, git and cwd paths that resolve (symlinks included) outside `workingDir`. */
  confineToWorkingDir: z.boolean().default(false),
  /** Largest accepted upload in bytes; larger ones get 413. Default 1 GiB. */
  maxUploadBytes: z
    .number()
    .int()
    .positive()
    .default(1024 ** 3),
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
  /** Extra CORS origins besides localhost and 127.0.0.1. */
  allowCorsOrigins: z.array(z.string().min(1)).default([]),
  /** Announce and serve our protocol extensions; `false` behaves like a plain OpenHands server. */
  extensions: z.boolean().default(true),
  logLevel: logLevelSchema.default('info'),
});

/** Options of {@link createAgentServer} as callers write them. */
export type AgentServerOptions = z.input<typeof agentServerOptionsSchema>;

/** Options after defaults are applied; `workingDir` is absolute. */
export type ResolvedAgentServerOptions = z.output<typeof agentServerOptionsSchema> & {
  workingDir: string;
};

/** Applies defaults and validates; throws a `ZodError` naming the bad field. */
export function resolveAgentServerOptions(
  options: AgentServerOptions = {},
): ResolvedAgentServerOptions {
  const parsed = agentServerOptionsSchema.parse(options);
  return { ...parsed, workingDir: path.resolve(parsed.workingDir ?? process.cwd()) };
}
