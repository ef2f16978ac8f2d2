import { createHash, randomBytes } from 'node:crypto';
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
}

/**
 * A new warm sandbox of the pool `entry`: fresh runtime id and nonce, the sandbox key's hash
 * only (the key itself is returned, for the readiness probe, and derivable again from the
 * labels), the pool's working directory and user, and a digest of those settings in
 * {@link RUNTIME_LABELS.warmSettings}.
 */
export function warmSandboxSpec({
  entry,
  namespace,
  sessionKeySecret,
  resources,
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
      // The agent-server reports its working directory as a container projection.
      environment: { AGENT_WORKSPACE_PROJECTION: 'container' },
      sessionKeyHash: sessionKeyHash(key),
      workingDir: entry.workingDir,
      runAsUser: entry.runAsUser,
      resourceFactor: 1,
      resources,
      labels: { ...labels, [RUNTIME_LABELS.warmSettings]: warmSettingsDigest(entry, resources) },
    },
  };
}

/**
 * Digest of what a pool's sandboxes start with (package version, image, working directory,
 * user, limits): a sandbox with the digest of a pool is interchangeable with a new one of it.
 */
export function warmSettingsDigest(entry: WarmPoolEntry, resources: SessionResources): string {
  const settings = [packageJson.version, entry.image, entry.workingDir, entry.runAsUser, resources];
  return createHash('sha256').update(JSON.stringify(settings)).digest('hex').slice(0, 32);
}
