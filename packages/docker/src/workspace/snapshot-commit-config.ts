import type Docker from 'dockerode';
import { LABEL_PREFIX } from './docker-labels.js';

/** Options of {@link snapshotCommitConfig}. */
export interface SnapshotCommitConfigOptions {
  /** `Config` of the image the container runs. */
  imageConfig: Docker.ImageInspectInfo['Config'];
  /** `Config` of the container. */
  containerConfig: Docker.ContainerInspectInfo['Config'];
  /** The snapshot's own labels (they win over any other). */
  labels: Record<string, string>;
}

/** The name of a `NAME=value` (or bare `NAME`) environment entry. */
function variableName(entry: string): string {
  const equals = entry.indexOf('=');
  return equals < 0 ? entry : entry.slice(0, equals);
}

/**
 * The config body of `POST /commit` for a snapshot. The engine merges the container's config
 * into it for every key it lacks (its `Env` entries, labels, command), so a body holding only
 * the image's `Env` would still persist the session key and the user's values. Instead:
 *
 * - `Env` is the image's own, plus the bare name of every other variable of the container: the
 *   engine then keeps no value, and a container run from the snapshot has those variables
 *   unset (a bare name means "unset" to Docker) unless its own options set them again;
 * - `Entrypoint`, `Cmd`, `User` and `WorkingDir` are the image's (so a fork's `command` and
 *   `user` options decide, not the original's);
 * - labels are the image's, every `agent-workspace.*` label of the container blanked (a fork
 *   must not inherit the original's workspace id, owner or `keep-alive`), then `labels`; the
 *   user's own labels of the container are kept, as `docker commit` does.
 */
export function snapshotCommitConfig({
  imageConfig,
  containerConfig,
  labels,
}: SnapshotCommitConfigOptions): Record<string, unknown> {
  const imageEnv = imageConfig.Env ?? [];
  const imageNames = new Set(imageEnv.map(variableName));
  const unset = (containerConfig.Env ?? [])
    .map(variableName)
    .filter((name, index, names) => !imageNames.has(name) && names.indexOf(name) === index);
  const blanked = Object.keys(containerConfig.Labels ?? {})
    .filter((key) => key.startsWith(LABEL_PREFIX))
    .map((key) => [key, '']);
  return {
    Env: [...imageEnv, ...unset],
    Entrypoint: imageConfig.Entrypoint ?? null,
    Cmd: imageConfig.Cmd ?? null,
    User: imageConfig.User ?? '',
    WorkingDir: imageConfig.WorkingDir ?? '',
    Labels: { ...imageConfig.Labels, ...Object.fromEntries(blanked), ...labels },
  };
}
