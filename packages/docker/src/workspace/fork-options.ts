import { invalidArgument } from '@agent-workspace/core';
import type Docker from 'dockerode';
import type { DockerSnapshot } from './docker-snapshot.js';
import type {
  DockerWorkspaceOptions,
  ResolvedDockerWorkspaceOptions,
} from './docker-workspace-options.js';

/** Options of `DockerWorkspace.snapshot`. */
export interface DockerSnapshotOptions {
  /** Name of the snapshot (1 to 200 printable characters). @default the container's name */
  name?: string | undefined;
  /** Checked before and after the commit (an engine commit cannot be cancelled midway). */
  signal?: AbortSignal | undefined;
}

/**
 * Options of `DockerWorkspace.fork`: options of the new workspace that differ from the
 * original's (`image`, `fromSnapshot`, `docker` and `dockerOptions` cannot), and a signal.
 */
export type ForkDockerWorkspaceOptions = Partial<DockerWorkspaceOptions> & {
  /** Aborting removes what was created (the snapshot included) and rejects with `ABORTED`. */
  signal?: AbortSignal | undefined;
};

/** Options a fork cannot change: it runs the snapshot on the engine that holds it. */
const FIXED_IN_FORK = ['image', 'fromSnapshot', 'docker', 'dockerOptions'] as const;

/** Throws `INVALID_ARGUMENT` naming an override a fork cannot take. */
export function checkForkOverrides(overrides: Partial<DockerWorkspaceOptions>): void {
  for (const field of FIXED_IN_FORK) {
    if (overrides[field] !== undefined) {
      throw invalidArgument(field, 'cannot change in a fork: it runs the snapshot on this engine');
    }
  }
}

/**
 * The options of a fork: the original's, without its image, name and session key (the fork
 * gets its own), with `overrides`, starting from `snapshot` on the same engine.
 */
export function forkOptions(
  original: ResolvedDockerWorkspaceOptions,
  overrides: Partial<DockerWorkspaceOptions>,
  snapshot: DockerSnapshot,
  docker: Docker,
): DockerWorkspaceOptions {
  const {
    image: _image,
    fromSnapshot: _fromSnapshot,
    dockerOptions: _dockerOptions,
    name: _name,
    sessionApiKey: _sessionApiKey,
    ...inherited
  } = original;
  return { ...inherited, ...overrides, fromSnapshot: snapshot.reference, docker };
}
