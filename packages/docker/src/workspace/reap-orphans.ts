import os from 'node:os';
import { WorkspaceError } from '@agent-workspace/core';
import { isProcessAlive } from '@agent-workspace/core/internal';
import { dockerError } from './docker-error.js';
import { DOCKER_LABELS } from './docker-labels.js';
import { removeContainer } from './remove-container.js';
import { type DockerConnectionOptions, resolveDocker } from './resolve-docker.js';

/** Options of {@link reapOrphans}. */
export interface ReapOrphansOptions extends DockerConnectionOptions {
  /** Also remove managed containers older than this, whoever owns them. Default: no age limit. */
  ttlMs?: number | undefined;
  /** Only consider containers carrying all of these labels. */
  labels?: Record<string, string> | undefined;
  signal?: AbortSignal | undefined;
}

/** A container {@link reapOrphans} removed, and why. */
export interface ReapedContainer {
  /** Container id. */
  id: string;
  /** Container name, without the leading `/`. */
  name: string;
  /** Its `agent-workspace.workspace-id` label. */
  workspaceId: string | undefined;
  /** `owner-gone`: its owner process on this machine has exited; `expired`: older than `ttlMs`. */
  reason: 'owner-gone' | 'expired';
}

/**
 * Removes containers that `DockerWorkspace`s left behind: managed containers whose owner process
 * ran on this machine (same `owner-host` label as `os.hostname()`) and no longer exists, and,
 * with `ttlMs`, any managed container older than that. Containers created with `keepAlive` are
 * never touched, and containers owned by other machines sharing the engine only by `ttlMs`.
 * Returns what it removed; an unreachable engine is `CONNECTION_ERROR`.
 *
 * @example
 * ```ts
 * const reaped = await reapOrphans({ ttlMs: 24 * 60 * 60 * 1000 });
 * ```
 */
export async function reapOrphans(options: ReapOrphansOptions = {}): Promise<ReapedContainer[]> {
  const { ttlMs, signal } = options;
  if (ttlMs !== undefined && !(typeof ttlMs === 'number' && ttlMs > 0)) {
    throw new WorkspaceError({
      code: 'INVALID_ARGUMENT',
      message: `ttlMs must be a positive number, got ${String(ttlMs)}`,
      details: { field: 'ttlMs' },
    });
  }
  const docker = resolveDocker(options);
  const filters = [
    `${DOCKER_LABELS.managed}=true`,
    ...Object.entries(options.labels ?? {}).map(([key, value]) => `${key}=${value}`),
  ];
  let containers: Awaited<ReturnType<typeof docker.listContainers>>;
  try {
    containers = await docker.listContainers({
      all: true,
      filters: { label: filters },
      abortSignal: signal,
    });
  } catch (error) {
    throw dockerError(error, { docker, action: 'list containers' });
  }
  const hostname = os.hostname();
  const now = Date.now();
  const orphans = containers.flatMap((container): ReapedContainer[] => {
    const labels = container.Labels ?? {};
    if (labels[DOCKER_LABELS.keepAlive] === 'true') return [];
    const pid = Number(labels[DOCKER_LABELS.ownerPid]);
    const ownerGone =
      labels[DOCKER_LABELS.ownerHost] === hostname &&
      Number.isInteger(pid) &&
      pid > 0 &&
      !isProcessAlive(pid);
    const expired = ttlMs !== undefined && now - container.Created * 1000 > ttlMs;
    if (!ownerGone && !expired) return [];
    return [
      {
        id: container.Id,
        name: (container.Names?.[0] ?? '').replace(/^\//, ''),
        workspaceId: labels[DOCKER_LABELS.workspaceId],
        reason: ownerGone ? 'owner-gone' : 'expired',
      },
    ];
  });
  await Promise.all(
    orphans.map((orphan) =>
      removeContainer({ docker, id: orphan.id, stopTimeoutSeconds: 0, signal }),
    ),
  );
  return orphans;
}
