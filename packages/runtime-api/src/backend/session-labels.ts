import { createHash } from 'node:crypto';
import packageJson from '../../package.json' with { type: 'json' };

/** Prefix of every label the Runtime API puts on what it creates. */
export const RUNTIME_LABEL_PREFIX = 'agent-workspace.runtime.';

/** The labels of a session's sandbox: the engine is the only record of a session. */
export const RUNTIME_LABELS = {
  /** The server namespace that owns it; servers sharing an engine see only their own. */
  namespace: 'agent-workspace.runtime.namespace',
  sessionId: 'agent-workspace.runtime.session-id',
  runtimeId: 'agent-workspace.runtime.runtime-id',
  image: 'agent-workspace.runtime.image',
  resourceFactor: 'agent-workspace.runtime.resource-factor',
  /** ISO 8601 creation time. */
  createdAt: 'agent-workspace.runtime.created-at',
  /** Random salt the session key is derived with (the key itself is stored nowhere). */
  keyNonce: 'agent-workspace.runtime.key-nonce',
  /** Version of `@agent-workspace/runtime-api` that made it. */
  version: 'agent-workspace.runtime.version',
  /**
   * `true` on a sandbox started for the warm pool: it has no session id label (its session is
   * bound later, see `sessionContainerName`) and its key derives from its runtime id.
   */
  pooled: 'agent-workspace.runtime.pooled',
  /**
   * `true` on a warm sandbox whose agent-server starts dormant (deferred init): the session that
   * claims it gets its own key through `POST /api/init` (`deriveClaimedKey`). A pooled session
   * without it was claimed from a sandbox of an earlier version, whose key — the sandbox key it
   * started with — the session kept (`sessionKeyOf` tells them apart).
   */
  deferredInit: 'agent-workspace.runtime.deferred-init',
  /** Digest of a warm sandbox's settings: a restarted server adopts it only for an equal pool. */
  warmSettings: 'agent-workspace.runtime.warm-settings',
  /**
   * `true` on a session started cold: the answer to its `/start` may never have reached a client
   * (the server was killed mid-start), so the server removes it once a grace passes without a
   * client fetching or using it (see `reapSessions`). Labels cannot change after creation: the
   * acknowledgement is recorded in the session's agent-server (`acknowledgeSession`). Sessions
   * without it (a claimed warm sandbox, one made by an older version) are never reaped so.
   */
  reapIfUnacknowledged: 'agent-workspace.runtime.reap-if-unacknowledged',
  /** `true` on a session's pause marker (a volume, see `PauseMarkers`), never on a sandbox. */
  pauseMarker: 'agent-workspace.runtime.pause-marker',
} as const;

/** Fields of a session recorded in its labels. */
export interface SessionLabelFields {
  namespace: string;
  sessionId: string;
  runtimeId: string;
  image: string;
  resourceFactor: number;
  createdAt: string;
  keyNonce: string;
  /** Started for the warm pool, claimed later (its key derives from its runtime id). */
  pooled?: boolean | undefined;
  /** Pooled, started dormant: its key came with its claim's init (see {@link RUNTIME_LABELS.deferredInit}). */
  deferredInit?: boolean | undefined;
}

/** What a session's and a warm sandbox's labels both hold. */
type SandboxLabelFields = Omit<SessionLabelFields, 'sessionId' | 'pooled' | 'deferredInit'>;

/** The labels of a new session started cold (marked {@link RUNTIME_LABELS.reapIfUnacknowledged}). */
export function sessionLabels(fields: SessionLabelFields): Record<string, string> {
  return {
    [RUNTIME_LABELS.sessionId]: fields.sessionId,
    ...sandboxLabels(fields),
    [RUNTIME_LABELS.reapIfUnacknowledged]: 'true',
  };
}

/**
 * The labels of a warm pool sandbox: a session's without the session id, which is not known
 * until a `/start` claims it, plus {@link RUNTIME_LABELS.pooled} and
 * {@link RUNTIME_LABELS.deferredInit}.
 */
export function warmSandboxLabels(fields: SandboxLabelFields): Record<string, string> {
  return {
    ...sandboxLabels(fields),
    [RUNTIME_LABELS.pooled]: 'true',
    [RUNTIME_LABELS.deferredInit]: 'true',
  };
}

function sandboxLabels(fields: SandboxLabelFields): Record<string, string> {
  return {
    [RUNTIME_LABELS.namespace]: fields.namespace,
    [RUNTIME_LABELS.runtimeId]: fields.runtimeId,
    [RUNTIME_LABELS.image]: fields.image,
    [RUNTIME_LABELS.resourceFactor]: String(fields.resourceFactor),
    [RUNTIME_LABELS.createdAt]: fields.createdAt,
    [RUNTIME_LABELS.keyNonce]: fields.keyNonce,
    [RUNTIME_LABELS.version]: packageJson.version,
  };
}

/** Reads a session's fields back from its labels; `undefined` when one is missing. */
export function sessionLabelFields(
  labels: Record<string, string> | undefined,
): SessionLabelFields | undefined {
  const get = (key: string) => labels?.[key];
  const fields = {
    namespace: get(RUNTIME_LABELS.namespace),
    sessionId: get(RUNTIME_LABELS.sessionId),
    runtimeId: get(RUNTIME_LABELS.runtimeId),
    image: get(RUNTIME_LABELS.image),
    resourceFactor: Number(get(RUNTIME_LABELS.resourceFactor)),
    createdAt: get(RUNTIME_LABELS.createdAt),
    keyNonce: get(RUNTIME_LABELS.keyNonce),
  };
  const { resourceFactor, ...strings } = fields;
  if (!Number.isFinite(resourceFactor)) return undefined;
  if (Object.values(strings).some((value) => value === undefined)) return undefined;
  const pooled = get(RUNTIME_LABELS.pooled) === 'true';
  const deferredInit = pooled && get(RUNTIME_LABELS.deferredInit) === 'true';
  return {
    ...(fields as SessionLabelFields),
    ...(pooled && { pooled }),
    ...(deferredInit && { deferredInit }),
  };
}

/**
 * The engine object name of a session (container or service): unique per namespace and session
 * id, so the engine itself refuses a second start. 48 characters, within Swarm's 63.
 */
export function sessionObjectName(namespace: string, sessionId: string): string {
  const digest = createHash('sha256').update(`${namespace}\0${sessionId}`).digest('hex');
  return `agent-workspace-session-${digest.slice(0, 24)}`;
}
