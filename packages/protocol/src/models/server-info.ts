import { z } from 'zod';
import {
  type RuntimePluginStatusWire,
  runtimePluginStatusWireSchema,
  type ServerResourcesWire,
  serverResourcesWireSchema,
} from './runtime-plugin-status.js';
import { type TrustBoundaryWire, trustBoundaryWireSchema } from './trust-boundary.js';

/**
 * Wire shape of `GET /server_info`. Lenient: unknown fields are kept (newer OpenHands servers add
 * some) and every field but `uptime` / `idle_time` falls back to the OpenHands default.
 */
export const serverInfoWireSchema = z.looseObject({
  uptime: z.number().nonnegative(),
  idle_time: z.number().nonnegative(),
  title: z.string().default('OpenHands Agent Server'),
  version: z.string().default('unknown'),
  sdk_version: z.string().default('unknown'),
  tools_version: z.string().default('unknown'),
  workspace_version: z.string().default('unknown'),
  build_git_sha: z.string().default('unknown'),
  build_git_ref: z.string().default('unknown'),
  python_version: z.string().nullable().default(null),
  usable_tools: z.array(z.string()).default([]),
  runtime_idle_timeout_seconds: z.number().nullable().default(null),
  capabilities: z.array(z.string()).default([]),
  max_foreground_terminal_timeout_seconds: z.number().nullable().default(null),
  docs: z.string().default('/docs'),
  redoc: z.string().default('/redoc'),
  /** Our addition: the runtime plugins the server was asked to load, with their state. */
  plugins: z.array(runtimePluginStatusWireSchema).default([]),
  /** Our addition (OpenHands' action server has its own `resources`): memory in use. */
  resources: serverResourcesWireSchema.nullable().default(null),
  /** Our addition: what confines paths, code execution and network; `null` from other servers. */
  trust_boundary: trustBoundaryWireSchema.nullable().default(null),
});

/** Wire JSON of a {@link ServerInfo}. */
export type ServerInfoWire = z.infer<typeof serverInfoWireSchema>;

/** What an agent-server reports about itself. */
export interface ServerInfo {
  /** Seconds since the server started. */
  uptime: number;
  /** Seconds since the last execution (bash, file or git call); orchestrators reap on it. */
  idleTime: number;
  /** Server name, `OpenHands Agent Server` for compatibility. */
  title: string;
  /** Server package version, or `unknown`. */
  version: string;
  /** SDK package version, or `unknown`. */
  sdkVersion: string;
  /** Tools package version, or `unknown`. */
  toolsVersion: string;
  /** Workspace package version, or `unknown`. */
  workspaceVersion: string;
  /** Git commit the server was built from, or `unknown`. */
  buildGitSha: string;
  /** Git ref the server was built from, or `unknown`. */
  buildGitRef: string;
  /** Python version of an OpenHands server; `null` for ours. */
  pythonVersion: string | null;
  /** Tool names the server can run. */
  usableTools: string[];
  /** Idle seconds after which the runtime is reclaimed, when there is such a limit. */
  runtimeIdleTimeoutSeconds: number | null;
  /** Optional protocol features the server supports; clients use them only when listed. */
  capabilities: string[];
  /** Longest allowed foreground terminal timeout, when capped. */
  maxForegroundTerminalTimeoutSeconds: number | null;
  /** Path of the interactive API docs. */
  docs: string;
  /** Path of the ReDoc API docs. */
  redoc: string;
  /** Runtime plugins and their state (empty for servers without any). */
  plugins: RuntimePluginStatusWire[];
  /** Memory of the server and the process trees it watches, when it reports it. */
  resources: ServerResourcesWire | null;
  /** What confines paths, code execution and network, when the server reports it. */
  trustBoundary: TrustBoundaryWire | null;
  /** Wire fields this package does not know, kept verbatim. */
  extra: Record<string, unknown>;
}

const KNOWN_KEYS = new Set(Object.keys(serverInfoWireSchema.shape));

/** Parses wire JSON into a {@link ServerInfo}. Throws a `ZodError` naming the bad field. */
export function serverInfoFromWire(json: unknown): ServerInfo {
  const wire = serverInfoWireSchema.parse(json);
  return {
    uptime: wire.uptime,
    idleTime: wire.idle_time,
    title: wire.title,
    version: wire.version,
    sdkVersion: wire.sdk_version,
    toolsVersion: wire.tools_version,
    workspaceVersion: wire.workspace_version,
    buildGitSha: wire.build_git_sha,
    buildGitRef: wire.build_git_ref,
    pythonVersion: wire.python_version,
    usableTools: wire.usable_tools,
    runtimeIdleTimeoutSeconds: wire.runtime_idle_timeout_seconds,
    capabilities: wire.capabilities,
    maxForegroundTerminalTimeoutSeconds: wire.max_foreground_terminal_timeout_seconds,
    docs: wire.docs,
    redoc: wire.redoc,
    plugins: wire.plugins,
    resources: wire.resources,
    trustBoundary: wire.trust_boundary,
    extra: Object.fromEntries(Object.entries(wire).filter(([key]) => !KNOWN_KEYS.has(key))),
  };
}
