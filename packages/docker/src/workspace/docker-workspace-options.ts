import { isIP } from 'node:net';
import path from 'node:path';
import { environmentNameSchema } from '@agent-workspace/protocol';
import Docker from 'dockerode';
import { z } from 'zod';
import { checkImageReference } from '../image/image-reference.js';
import { type ContainerSandbox, containerSandboxSchema } from './container-sandbox.js';
import { LABEL_PREFIX } from './docker-labels.js';

/** How a workspace reaches its container's agent-server; see `DockerWorkspaceOptions.connect`. */
export const DOCKER_CONNECTIONS = ['auto', 'bridge', 'published-port'] as const;

/** A value of `DockerWorkspaceOptions.connect`. */
export type DockerConnection = (typeof DOCKER_CONNECTIONS)[number];

/** The variable carrying the session key; the workspace sets it (see `sessionApiKey`). */
const SESSION_KEY_VARIABLE = 'SESSION_API_KEY';

const absolutePosixPath = z
  .string()
  .min(1)
  .refine((value) => path.posix.isAbsolute(value), 'must be an absolute path');

const environmentName = environmentNameSchema.refine(
  (name) => name !== SESSION_KEY_VARIABLE,
  'SESSION_API_KEY is set by the workspace; use the sessionApiKey option',
);

const mountFields = {
  /** Absolute path inside the container. */
  target: absolutePosixPath,
  /** Mount read-only. Default false. */
  readOnly: z.boolean().optional(),
};

/** A bind mount of a host path or a named volume. */
export const dockerMountSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('bind'),
    /** Absolute path on the engine's host. */
    source: z
      .string()
      .min(1)
      .refine((value) => path.isAbsolute(value), 'must be an absolute path'),
    ...mountFields,
  }),
  z.strictObject({
    type: z.literal('volume'),
    /** Volume name (created by Docker when missing). */
    source: z.string().min(1),
    ...mountFields,
  }),
]);

/** `name:address` of `/etc/hosts`, the address an IP or Docker's `host-gateway`. */
const extraHostSchema = z.string().refine((entry) => {
  const colon = entry.indexOf(':');
  const name = entry.slice(0, colon);
  const address = entry.slice(colon + 1);
  return (
    colon > 0 &&
    /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(name) &&
    (address === 'host-gateway' || isIP(address) !== 0)
  );
}, 'must be name:address, the address an IP or host-gateway (e.g. host.docker.internal:host-gateway)');

/** An image reference by Docker's grammar (an image id `sha256:<hex>` is one too). */
const imageReference = z.string().superRefine((image, context) => {
  const problem = checkImageReference(image);
  if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
});

/** Resource limits of the container. */
export const dockerResourcesSchema = z.strictObject({
  /** Memory limit in bytes (swap included, so no extra swap). Docker's minimum is 6 MiB. */
  memoryBytes: z
    .number()
    .int()
    .min(6 * 1024 * 1024),
  /** CPUs, fractional allowed (`0.5` is half a CPU). */
  cpus: z.number().positive().max(1024),
  /** Largest number of processes and threads. */
  pidsLimit: z.number().int().positive(),
  /**
   * Size of the container's writable layer in bytes (Docker's `--storage-opt size`): only where
   * the storage driver can limit it (overlay2 on xfs mounted with `pquota`, btrfs, zfs); other
   * engines refuse the container, reported as `INVALID_CONFIG` naming `resources.diskBytes`.
   * Bind mounts and volumes are not counted.
   */
  diskBytes: z
    .number()
    .int()
    .min(16 * 1024 * 1024),
});

/** Every JSON-describable field of {@link DockerWorkspaceOptions}. */
export const dockerWorkspaceFields = {
  image: imageReference.optional(),
  fromSnapshot: imageReference.optional(),
  workingDir: absolutePosixPath.default('/workspace'),
  env: z.record(environmentName, z.string()).optional(),
  forwardEnv: z.array(environmentName).optional(),
  mounts: z.array(dockerMountSchema).optional(),
  network: z
    .string()
    .min(1)
    .refine(
      (name) => name !== 'host' && name !== 'none',
      'must be a bridge or user-defined network: the agent-server is reached at its address there or through a published port',
    )
    .optional(),
  platform: z
    .string()
    .regex(/^[a-z0-9]+\/[a-z0-9_]+(\/[a-z0-9]+)?$/, 'must look like os/arch[/variant]')
    .optional(),
  resources: dockerResourcesSchema.partial().optional(),
  extraPorts: z.array(z.number().int().min(1).max(65_535)).optional(),
  extraHosts: z.array(extraHostSchema).optional(),
  labels: z
    .record(
      z
        .string()
        .min(1)
        .refine((key) => !key.startsWith(LABEL_PREFIX), `must not start with ${LABEL_PREFIX}`),
      z.string(),
    )
    .optional(),
  user: z.string().min(1).optional(),
  name: z
    .string()
    .regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]+$/, 'must be a valid container name')
    .optional(),
  command: z.array(z.string()).optional(),
  sandbox: containerSandboxSchema.optional(),
  publishAddress: z.string().min(1).default('127.0.0.1'),
  connect: z.enum(DOCKER_CONNECTIONS).default('auto'),
  sessionApiKey: z.string().min(16).optional(),
  deferInit: z.boolean().default(false),
  keepAlive: z.boolean().default(false),
  reapOrphans: z.boolean().default(true),
  startupTimeoutMs: z.number().positive().optional(),
  lifecycleTimeoutMs: z.number().positive().optional(),
  reconnectTimeoutMs: z.number().positive().optional(),
  dockerOptions: z
    .custom<Docker.DockerOptions>(
      (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
      'must be an object of dockerode options',
    )
    .optional(),
};

/** Validates {@link DockerWorkspaceOptions}; the `docker` client is checked by shape. */
export const dockerWorkspaceOptionsSchema = z
  .strictObject({
    ...dockerWorkspaceFields,
    docker: z
      .custom<Docker>(
        (value) =>
          value instanceof Docker ||
          (typeof value === 'object' && value !== null && 'modem' in value),
        'must be a dockerode client',
      )
      .optional(),
  })
  .refine((options) => !(options.docker && options.dockerOptions), {
    message: 'give either docker or dockerOptions, not both',
    path: ['dockerOptions'],
  })
  .superRefine((options, context) => {
    if (options.image !== undefined && options.fromSnapshot !== undefined) {
      context.addIssue({
        code: 'custom',
        message: 'give either image or fromSnapshot, not both (a snapshot is an image)',
        path: ['fromSnapshot'],
      });
    } else if (options.image === undefined && options.fromSnapshot === undefined) {
      context.addIssue({
        code: 'custom',
        message: 'required: the agent-server image (or fromSnapshot, a snapshot to start from)',
        path: ['image'],
      });
    }
  })
  .refine((options) => options.connect !== 'bridge' || isLoopback(options.publishAddress), {
    message:
      "publishAddress is not used with connect: 'bridge' (no port is published); use 'published-port' to publish on it",
    path: ['connect'],
  })
  .refine((options) => options.connect !== 'bridge' || !options.deferInit, {
    message:
      "connect: 'bridge' cannot be used with deferInit: after initialize() the workspace uses your key, which may open the container Docker gives this one's address after it dies; use 'auto' or 'published-port'",
    path: ['connect'],
  })
  .refine((options) => options.sandbox === undefined || !runsAsRoot(options.user), {
    message:
      'a sandboxed container runs its server as an unprivileged user (its /proc is unmasked)',
    path: ['user'],
  });

/** True for an address only this host reaches (`127.0.0.0/8`, `::1`, `localhost`). */
export function isLoopback(address: string): boolean {
  return address === 'localhost' || address === '::1' || /^127\.\d+\.\d+\.\d+$/.test(address);
}

/** True for a `user` that names root (`root`, `0`, `root:…`, `0:…`). */
function runsAsRoot(user: string | undefined): boolean {
  return user !== undefined && /^(root|0)(:|$)/.test(user);
}

/**
 * Options of {@link DockerWorkspace}. Exactly one of `image` and `fromSnapshot` is required.
 *
 * @example
 * ```ts
 * const options: DockerWorkspaceOptions = {
 *   image: 'agent-workspace/agent-server:latest', // tagged by `agent-workspace-docker build-image`
 *   mounts: [{ type: 'bind', source: '/home/me/project', target: '/workspace/project' }],
 *   resources: { memoryBytes: 2 * 1024 ** 3, cpus: 2, pidsLimit: 512 },
 * };
 * ```
 */
export interface DockerWorkspaceOptions {
  /** The agent-server image (its entrypoint must start the server on port 8000). Required unless `fromSnapshot`. */
  image?: string | undefined;
  /**
   * Start from a snapshot instead of `image`: the reference or id of a snapshot taken by
   * `DockerWorkspace.snapshot()` (see `listDockerSnapshots()`). The container gets the
   * snapshot's filesystem (files, git history, installed packages) and a fresh agent-server; no
   * process of the original runs. Checked when the container is created: an image that is
   * missing or is not one of our snapshots is `INVALID_CONFIG` naming `fromSnapshot`.
   */
  fromSnapshot?: string | undefined;
  /** Directory relative paths resolve against. @default '/workspace' */
  workingDir?: string | undefined;
  /** Environment variables of the container. */
  env?: Record<string, string> | undefined;
  /** Names of variables copied from this process's environment when set. */
  forwardEnv?: string[] | undefined;
  /** Bind mounts and named volumes. */
  mounts?: DockerMount[] | undefined;
  /** Network to attach to (bridge or user-defined); default Docker's bridge. */
  network?: string | undefined;
  /** `os/arch[/variant]` of the image to run; default the engine's own (never forced to amd64). */
  platform?: string | undefined;
  /** Memory, CPU and process limits; default none. */
  resources?: Partial<DockerResources> | undefined;
  /** More container ports to publish on `publishAddress` (Docker picks the host ports); see `publishedPort()`. */
  extraPorts?: number[] | undefined;
  /**
   * More `/etc/hosts` entries of the container, `name:address` (Docker's `--add-host`):
   * `['host.docker.internal:host-gateway']` lets the container reach the host's bridge address
   * by name (a server on the host must listen there or on `0.0.0.0`, not only on 127.0.0.1).
   */
  extraHosts?: string[] | undefined;
  /** Your labels (keys must not start with `agent-workspace.`). */
  labels?: Record<string, string> | undefined;
  /** User to run as, e.g. `10001` or `root`; default the image's. */
  user?: string | undefined;
  /** Container name; default `agent-workspace-<id>`. */
  name?: string | undefined;
  /** Arguments after the image's entrypoint (e.g. `['--host', '0.0.0.0', '--port', '8000']` for OpenHands images). */
  command?: string[] | undefined;
  /**
   * Run what the agent does (commands, conversation tools, the kernel, the browser) in the
   * agent-server's bubblewrap sandbox inside the container, with an egress policy: `true`,
   * `{ network: false }` (no network) or `{ allowHosts: ['registry.npmjs.org', ...] }` (only
   * these hosts, through the agent-server's proxy; refusals are in the container's log). The
   * flags are appended after `command`; the container gets the security options bubblewrap
   * needs (see `sandboxHostConfig`). Needs an image with bubblewrap (ours has it).
   */
  sandbox?: ContainerSandbox | undefined;
  /**
   * Host address ports are published on. @default '127.0.0.1'. Publishing on all interfaces
   * (`0.0.0.0`) exposes the agent-server to the network (the session key still guards it).
   */
  publishAddress?: string | undefined;
  /**
   * How this process reaches the agent-server:
   * - `'bridge'`: at the container's own address on its network (e.g. `http://172.17.0.2:8000`),
   *   with no port published: no docker-proxy and no port binding at start (faster). That
   *   address is reachable from the engine's host and from containers on the same network, as
   *   the container's ports already are without publishing; nothing becomes reachable from
   *   other machines. Only for an engine whose bridge this process can reach: a local engine
   *   on Linux. Docker hands a dead container's address to the next container at once; the
   *   workspace's requests carry a key of its own (even with `sessionApiKey`), so one that
   *   reaches the newcomer is refused there (and read as `SANDBOX_EXITED`), never run. Not with
   *   `deferInit`: after `initialize()` the workspace uses the caller's key, which may open
   *   other containers too (`INVALID_CONFIG` naming `connect`).
   * - `'published-port'`: through ports published on `publishAddress` (Docker picks the host
   *   ports): remote engines (`DOCKER_HOST`), Docker Desktop, rootless Docker.
   * - `'auto'`: `'bridge'` when this process runs on Linux, talks to the engine over a local
   *   socket, `publishAddress` is a loopback address, the network's gateway is an address of
   *   this host (so its bridge is on this host: not Docker Desktop's VM, not rootless Docker's
   *   namespace), and `deferInit` is not set; otherwise, or when the container's address does
   *   not answer once its server listens (the container is then re-created with published
   *   ports), `'published-port'`.
   *
   * `publishedPort()` / `publishedPorts` and `host` give the address in use either way.
   * @default 'auto'
   */
  connect?: DockerConnection | undefined;
  /**
   * A session API key the agent-server also accepts, for the caller's other clients (a browser,
   * `curl`, an SDK in another process; `host` says where). The workspace itself always sends a
   * random key of its own (32 bytes, hex; `agentServerEndpoint()` gives it), until
   * `initialize()` with `deferInit` hands it the caller's.
   */
  sessionApiKey?: string | undefined;
  /**
   * Start the agent-server dormant (OpenHands' deferred init, `OH_DEFERRED_INIT=true`): it
   * answers `/health` (so start-up and `alive()` work) but refuses commands, files and sockets
   * with 503 until `initialize()` delivers the claim-time configuration (e.g. the user's session
   * key), once. For warm pools whose members are configured only when claimed (the pool's
   * `initialize` hook). @default false
   */
  deferInit?: boolean | undefined;
  /** Leave the container running on `close()` (reaping skips it too). @default false */
  keepAlive?: boolean | undefined;
  /** Remove orphaned containers (see `reapOrphans()`) when starting. @default true */
  reapOrphans?: boolean | undefined;
  /** Bound on start-up: create, start, agent-server answering. @default 120000 */
  startupTimeoutMs?: number | undefined;
  /** Bound on each pause, resume and release step. @default 30000 */
  lifecycleTimeoutMs?: number | undefined;
  /** How long a running command waits for a dropped connection before the container is checked. @default 3000 */
  reconnectTimeoutMs?: number | undefined;
  /** A dockerode client (not closed by the workspace). */
  docker?: Docker | undefined;
  /** Options of a new dockerode client; default `DOCKER_HOST` or the default socket. */
  dockerOptions?: Docker.DockerOptions | undefined;
}

/** A mount of {@link DockerWorkspaceOptions}. */
export type DockerMount = z.input<typeof dockerMountSchema>;
/** Resource limits of {@link DockerWorkspaceOptions}. */
export type DockerResources = z.input<typeof dockerResourcesSchema>;
/** Options after validation, defaults applied. */
export type ResolvedDockerWorkspaceOptions = z.output<typeof dockerWorkspaceOptionsSchema>;
