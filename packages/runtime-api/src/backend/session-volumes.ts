import { createHash } from 'node:crypto';
import path from 'node:path';
import type { RuntimeVolumeWire } from '@agent-workspace/protocol';
import { RUNTIME_LABEL_PREFIX, RUNTIME_LABELS } from './session-labels.js';

/**
 * Label of a session started with `volumes`: a digest of them, so a `/start` of an existing
 * session is answered as is only when it asks for the same volumes. Absent: none.
 */
export const SESSION_VOLUMES_LABEL = `${RUNTIME_LABEL_PREFIX}volumes`;

/** Label of a shared named volume: the client's name of it (its namespace is labelled too). */
export const SHARED_VOLUME_LABEL = `${RUNTIME_LABEL_PREFIX}shared-volume`;

/** A mount of a session's sandbox, resolved by the server from the `/start` `volumes`. */
export type SessionVolume =
  | {
      type: 'bind';
      /** A host directory the operator allows (`allowedBindSources`), exactly. */
      source: string;
      target: string;
      readOnly: boolean;
    }
  | {
      type: 'volume';
      /** The engine volume: {@link sharedVolumeName}. */
      source: string;
      target: string;
      readOnly: boolean;
      /** Labels the volume is created with ({@link sharedVolumeLabels}). */
      labels: Record<string, string>;
    };

/**
 * The engine name of the namespace's shared volume `name`: `agent-workspace-volume-`, 12 hex
 * digits of the SHA-256 of the namespace, `-`, then the client's name. The digest (not the
 * namespace itself, which may hold `-`) keeps two namespaces' names from ever colliding.
 */
export function sharedVolumeName(namespace: string, name: string): string {
  const digest = createHash('sha256').update(namespace).digest('hex').slice(0, 12);
  return `agent-workspace-volume-${digest}-${name}`;
}

/**
 * The labels of a shared volume: its namespace and name, and no runtime id — so removing a
 * session's volumes by its runtime id (the Swarm backend's `stop`) never removes it.
 */
export function sharedVolumeLabels(namespace: string, name: string): Record<string, string> {
  return { [RUNTIME_LABELS.namespace]: namespace, [SHARED_VOLUME_LABEL]: name };
}

/**
 * A bind source as it is compared with the allowed ones and handed to the engine:
 * `path.posix.normalize`d, without a trailing `/`.
 */
export function normalizeBindSource(source: string): string {
  const normalized = path.posix.normalize(source);
  return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
}

/** The mounts of `volumes` in `namespace` (bind sources normalised, named volumes namespaced). */
export function sessionVolumes(
  namespace: string,
  volumes: readonly RuntimeVolumeWire[] | undefined,
): SessionVolume[] {
  return (volumes ?? []).map((volume) => {
    const readOnly = volume.read_only ?? false;
    if (volume.type === 'bind') {
      const source = normalizeBindSource(volume.source);
      return { type: 'bind', source, target: volume.target, readOnly };
    }
    return {
      type: 'volume',
      source: sharedVolumeName(namespace, volume.name),
      target: volume.target,
      readOnly,
      labels: sharedVolumeLabels(namespace, volume.name),
    };
  });
}

/**
 * The {@link SESSION_VOLUMES_LABEL} value of `volumes` (`sha256:` and hex), or `undefined` for
 * none: the same for the same mounts in any order.
 */
export function sessionVolumesDigest(
  volumes: readonly RuntimeVolumeWire[] | undefined,
): string | undefined {
  if (!volumes?.length) return undefined;
  // Targets are unique: ordering by them is canonical.
  const canonical = [...volumes]
    .sort((a, b) => (a.target < b.target ? -1 : 1))
    .map((volume) => [
      volume.type,
      volume.type === 'bind' ? normalizeBindSource(volume.source) : volume.name,
      volume.target,
      volume.read_only ?? false,
    ]);
  return `sha256:${createHash('sha256').update(JSON.stringify(canonical)).digest('hex')}`;
}
