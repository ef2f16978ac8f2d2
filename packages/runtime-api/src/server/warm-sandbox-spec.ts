import { createHash, randomBytes } from 'node:crypto';
import type { ContainerSandbox } from '@agent-workspace/docker/engine';
import packageJson from '../../package.json' with { type: 'json' };
import type { SessionResources, WarmSandboxSpec } from '../backend/runtime-backend.js';
import { RUNTIME_LABELS, warmSandboxLabels } from '../backend/session-labels.js';
import { deriveSandboxKey, sessionKeyHash } from './session-key.js';
import type { WarmPoolEntry } from './warm-pool-options.js';

/** Options of {@link warmSandboxSpec}. */
export interface WarmSandboxSpecOptions {
  entry: WarmPoolEntry;
  namespace: string;
  sessionKeySecret: string;
  /** Base limits of a sandbox; a pool sandbox has `resource_factor` 1. */
  resources: SessionResources;
  /** The operator's command sandbox and allow-list of every session, if any. */
  sandbox?: ContainerSandbox | undefined;
}

/**
 * A new warm sandbox of the pool `entry`: fresh runtime id and nonce, started dormant
 * (`OH_DEFERRED_INIT`), the sandbox key's hash only (the key itself — its init key — is
 * returned, for the readiness probe and the claim's init, and derivable again from the labels),
 * the pool's working directory and user, and a digest of those settings in
 * {@link RUNTIME_LABELS.warmSettings}.
 */
export function warmSandboxSpec({
  entry,
  namespace,
  sessionKeySecret,
  resources,
  sandbox,
}: WarmSandboxSpecOptions): { spec: WarmSandboxSpec; key: string } {
  const runtimeId = randomBytes(16).toString('hex');
  const keyNonce = randomBytes(16).toString('hex');
  const key = deriveSandboxKey(sessionKeySecret, runtimeId, keyNonce);
  const labels = warmSandboxLabels({
    namespace,
    runtimeId,
    image: entry.image,
    resourceFactor: 1,
    createdAt: new Date().toISOString(),
    keyNonce,
  });
  return {
    key,
    spec: {
      runtimeId,
      image: entry.image,
      // The agent-server reports its working directory as a container projection, and starts
      // dormant: the claim's `POST /api/init` gives it the session's key.
      environment: { AGENT_WORKSPACE_PROJECTION: 'container', OH_DEFERRED_INIT: 'true' },
      sessionKeyHash: sessionKeyHash(key),
      workingDir: entry.workingDir,
      runAsUser: entry.runAsUser,
      resourceFactor: 1,
      resources,
      sandbox,
      labels: {
        ...labels,
        [RUNTIME_LABELS.warmSettings]: warmSettingsDigest(entry, resources, sandbox),
      },
    },
  };
}

/**
 * Digest of what a pool's sandboxes start with (package version, image, working directory,
 * user, limits, sandbox): a sandbox with the digest of a pool is interchangeable with a new one of it.
 */
export function warmSettingsDigest(
  entry: WarmPoolEntry,
  resources: SessionResources,
  sandbox: ContainerSandbox | undefined,
): string {
  const settings = [
    packageJson.version,
    entry.image,
    entry.workingDir,
    entry.runAsUser,
    resources,
    sandbox ?? null,
  ];
  return createHash('sha256').update(JSON.stringify(settings)).digest('hex').slice(0, 32);
}
