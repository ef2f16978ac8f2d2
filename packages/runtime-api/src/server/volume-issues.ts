import path from 'node:path';
import {
  isSameOrAncestorPath,
  type StartRuntimeRequestWire,
  type ValidationIssue,
} from '@agent-workspace/protocol';
import { normalizeBindSource } from '../backend/session-volumes.js';

/** The working directory of a session whose `/start` sets none: the agent-server image's. */
export const DEFAULT_SESSION_WORKING_DIR = '/workspace';

/** Options {@link volumeIssues} reads. */
export interface VolumeIssuesOptions {
  /** The operator's bind sources, resolved (see `allowedBindSources`). */
  allowedBindSources?: readonly string[] | undefined;
}

/**
 * What the schema cannot judge of `volumes`, as FastAPI-style issues naming
 * `volumes[i].source` / `volumes[i].target`: a bind source that is not exactly one of the
 * operator's `allowedBindSources` (sub-paths never: see there), and a target that is the
 * session's working directory (`working_dir`, {@link DEFAULT_SESSION_WORKING_DIR} when unset)
 * or one of its ancestors — the working directory stays the sandbox's own (a Swarm session keeps
 * it on a volume of its own); mount beside it or below it.
 */
export function volumeIssues(
  options: VolumeIssuesOptions,
  body: Pick<StartRuntimeRequestWire, 'volumes' | 'working_dir'>,
): ValidationIssue[] {
  const allowed = options.allowedBindSources ?? [];
  const workingDir = body.working_dir ?? DEFAULT_SESSION_WORKING_DIR;
  const issues: ValidationIssue[] = [];
  (body.volumes ?? []).forEach((volume, index) => {
    if (volume.type === 'bind' && !allowed.includes(normalizeBindSource(volume.source))) {
      const which =
        allowed.length === 0
          ? 'this server allows no bind mounts'
          : `allowed: ${allowed.join(', ')}`;
      issues.push({
        type: 'value_error',
        loc: ['body', 'volumes', index, 'source'],
        msg: `Value error, source must be exactly one of the host directories the server's operator allows (allowedBindSources, --allow-bind <dir>), never a path below one; ${which}`,
        input: volume.source,
      });
    }
    if (isSameOrAncestorPath(volume.target, path.posix.normalize(workingDir))) {
      issues.push({
        type: 'value_error',
        loc: ['body', 'volumes', index, 'target'],
        msg: `Value error, target must not be the working directory ${workingDir} nor contain it; mount beside it or below it`,
        input: volume.target,
      });
    }
  });
  return issues;
}
