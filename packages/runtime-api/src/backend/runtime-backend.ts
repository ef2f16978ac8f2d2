import type { ContainerSandbox } from '@agent-workspace/docker/engine';
import type { RuntimeSessionStatus } from '@agent-workspace/protocol';
import type { RuntimeSnapshotBackend } from './runtime-snapshot-backend.js';
import type { SessionVolume } from './session-volumes.js';

/** Options every backend call takes. */
export interface BackendCallOptions {
  /** Aborting ends the call with `ABORTED`. */
  signal?: AbortSignal | undefined;
}

/** Resource limits of one sandbox (the server's base limits times `resource_factor`). */
export interface SessionResources {
  /** Memory limit in bytes. */
  memoryBytes?: number | undefined;
  /** CPUs, fractions allowed. */
  cpus?: number | undefined;
  /** Most processes and threads. */
  pidsLimit?: number | undefined;
}

/** What the server asks a backend to run for a new session. */
export interface SessionSpec {
  sessionId: string;
  /** Random 32-hex id of this run of the session (what pause, resume and stop name). */
  runtimeId: string;
  /** The agent-server image (already checked against the server's allowed images). */
  image: string;
  /** Environment of the sandbox; the backend adds `SESSION_API_KEY_SHA256`. */
  environment: Record<string, string>;
  /** SHA-256 (hex) of the session key: the sandbox gets only this, as `SESSION_API_KEY_SHA256`. */
  sessionKeyHash: string;
  /** Directory the agent-server treats as its working directory; the image's when unset. */
  workingDir?: string | undefined;
  /** Numeric user to run as; the image's when unset. */
  runAsUser?: number | undefined;
  resourceFactor: number;
  resources: SessionResources;
  /** Labels the backend must put on everything it creates (see `sessionLabels`). */
  labels: Record<string, string>;
  /**
   * The agent-server's command sandbox and egress policy (see `ContainerSandbox` of
   * `@agent-workspace/docker`); only on backends with {@link RuntimeBackend.sandboxes}.
   */
  sandbox?: ContainerSandbox | undefined;
  /**
   * Bind mounts of operator-allowed host directories and the namespace's shared named volumes
   * (see `sessionVolumes`); a backend creates a missing named volume with its labels and never
   * removes one when the session stops.
   */
  volumes?: SessionVolume[] | undefined;
  /**
   * The engine's id of a snapshot (`BackendSnapshot.imageId`) the sandbox starts from instead
   * of `image`; only on backends with {@link RuntimeBackend.snapshots}.
   */
  fromSnapshot?: string | undefined;
}

/**
 * What the server asks a backend to run for its warm pool: a session's spec without the session
 * id (unknown until a `/start` claims the sandbox); its labels come from `warmSandboxLabels` and
 * its key hash from the sandbox key (`deriveSandboxKey`).
 */
export type WarmSandboxSpec = Omit<SessionSpec, 'sessionId'>;

/**
 * The warm pool side of a backend: sandboxes started ahead of any session, which a `/start`
 * claims. Claiming binds the sandbox to one session durably and atomically in the engine (a
 * restarted server sees it as that session and never as warm again), and a claimed sandbox is a
 * session like any other (`/stop` removes it). Unclaimed warm sandboxes are no sessions: `get`,
 * `getByRuntimeId` and `list` never answer them.
 */
export interface WarmSandboxBackend {
  /** Creates and starts a warm sandbox; what this call created is removed again when it fails. */
  startWarm(spec: WarmSandboxSpec, options?: BackendCallOptions): Promise<BackendSession>;
  /** Every unclaimed warm sandbox of the namespace (their labels carry no session id). */
  listWarm(options?: BackendCallOptions): Promise<BackendSession[]>;
  /**
   * Binds the unclaimed warm sandbox `runtimeId` to `sessionId` and answers it as that session;
   * `ALREADY_EXISTS` when the session id is taken (the sandbox stays warm), `NOT_FOUND` when no
   * unclaimed warm sandbox has that runtime id (removed, or claimed already).
   */
  claimWarm(
    runtimeId: string,
    sessionId: string,
    options?: BackendCallOptions,
  ): Promise<BackendSession>;
  /** Removes the warm sandbox `runtimeId` unless it was claimed meanwhile; `false` when none. */
  removeWarm(runtimeId: string, options?: BackendCallOptions): Promise<boolean>;
}

/**
 * The engine's view of a session's sandbox. `engineState` is what the engine says; the server
 * turns `running` into `ready` once the agent-server answers `/health`.
 */
export interface BackendSession {
  /** The labels the session was created with (the server reads its fields from them). */
  labels: Record<string, string>;
  status: RuntimeSessionStatus;
  /** `pending` (scheduled, pulling, creating), `running`, or a fatal state. */
  engineState: 'pending' | 'running' | 'failed' | 'crashloopbackoff' | 'unknown';
  /** Base URL of the agent-server as the server's clients reach it, once published. */
  url?: string | undefined;
  /** Why the sandbox is not running (exit code, engine message), when it is not. */
  message?: string | undefined;
  /**
   * Set by the server, never by a backend: its agent-server answered a keyed request moments ago
   * (a warm sandbox just claimed), so it is `ready` without another probe.
   */
  answered?: true | undefined;
}

/**
 * Where Runtime API sessions run: one Docker engine, a Docker Swarm, and later Kubernetes. A
 * backend keeps nothing of its own in memory: everything it knows comes from the engine, found
 * by the labels of {@link SessionSpec.labels}, so a restarted server knows every session.
 * Sessions are unique by `sessionId`: the engine refuses a second one (by object name), so two
 * concurrent starts cannot both succeed.
 */
export interface RuntimeBackend {
  /** `docker`, `swarm`, ... */
  readonly kind: string;
  /** The label namespace this backend lists; sessions of other namespaces are invisible. */
  readonly namespace: string;
  /** Creates and starts the sandbox; `SESSION_EXISTS` when the session id is taken. */
  start(spec: SessionSpec, options?: BackendCallOptions): Promise<BackendSession>;
  /** The session by its id, or `undefined`. */
  get(sessionId: string, options?: BackendCallOptions): Promise<BackendSession | undefined>;
  /** The session by its runtime id, or `undefined`. */
  getByRuntimeId(
    runtimeId: string,
    options?: BackendCallOptions,
  ): Promise<BackendSession | undefined>;
  /** Every session of this backend's namespace. */
  list(options?: BackendCallOptions): Promise<BackendSession[]>;
  /** Suspends the session (idempotent); its files stay. */
  pause(runtimeId: string, options?: BackendCallOptions): Promise<BackendSession>;
  /** Resumes the session (idempotent); the URL may change. */
  resume(runtimeId: string, options?: BackendCallOptions): Promise<BackendSession>;
  /** Removes the sandbox and what it holds; `false` when there was none. */
  stop(runtimeId: string, options?: BackendCallOptions): Promise<boolean>;
  /** The sandbox's last log lines, `''` when there are none. */
  logs(runtimeId: string, options: BackendCallOptions & { tailLines: number }): Promise<string>;
  /** Warm pool sandboxes, on backends that can claim one for a session (Docker; not Swarm). */
  readonly warmSandboxes?: WarmSandboxBackend | undefined;
  /**
   * Snapshots of sessions, on backends whose sandboxes hold their files (Docker; not Swarm,
   * whose files are on a node-local volume a commit would not hold).
   */
  readonly snapshots?: RuntimeSnapshotBackend | undefined;
  /**
   * True when the backend can start an agent-server whose command sandbox works (a
   * {@link SessionSpec.sandbox}): Docker can, with the security options bubblewrap needs; a
   * Swarm service cannot unmask `/proc` or take a seccomp profile on the engines we support.
   */
  readonly sandboxes: boolean;
}
