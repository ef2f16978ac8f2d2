import { z } from 'zod';

/** Config of a `LocalWorkspace`: `{ workingDir }`, `kind` optional. */
export const localWorkspaceConfigSchema = z.strictObject({
  kind: z.literal('local').optional(),
  workingDir: z.string().min(1),
  maxOutputBytes: z.number().int().positive().optional(),
  env: z.record(z.string(), z.string()).optional(),
});

/** Config of a `RemoteWorkspace`: `{ host, workingDir, apiKey? }`, `kind` optional. */
export const remoteWorkspaceConfigSchema = z.strictObject({
  kind: z.literal('remote').optional(),
  host: z.url({ protocol: /^https?$/ }),
  workingDir: z.string().min(1),
  apiKey: z.string().min(1).optional(),
  requestTimeoutMs: z.number().positive().optional(),
  connectTimeoutMs: z.number().positive().optional(),
  reconnectTimeoutMs: z.number().positive().optional(),
  maxConnections: z.number().int().positive().optional(),
  maxOutputBytes: z.number().int().positive().optional(),
});
