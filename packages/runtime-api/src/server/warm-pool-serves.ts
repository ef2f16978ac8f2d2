import type { StartRuntimeRequestWire } from '@agent-workspace/protocol';
import type { WarmPoolEntry } from './warm-pool-options.js';

/**
 * True when a sandbox of the warm pool `entry` is exactly what `body` asks for, so it may be
 * served from the pool: the same image; `working_dir` equal to the pool's `workingDir` (absent
 * asks for the image's own, which a pool sandbox does not promise); `run_as_user` equal to the
 * pool's `runAsUser` (both unset, or equal); no `environment` (absent or `{}`: a started
 * sandbox's environment cannot change); `resource_factor` absent or 1 (the pool's limits).
 * No `allow_hosts` of its own (a pool sandbox has the operator's allow-list, if any), no
 * `from_snapshot` (a pool sandbox holds its image's files, not a snapshot's).
 * `command`, `runtime_class` and `fs_group` are ignored for every start, so they do not matter.
 */
export function warmPoolServes(entry: WarmPoolEntry, body: StartRuntimeRequestWire): boolean {
  return (
    body.image === entry.image &&
    body.working_dir === entry.workingDir &&
    (body.run_as_user ?? undefined) === entry.runAsUser &&
    Object.keys(body.environment ?? {}).length === 0 &&
    (body.resource_factor ?? 1) === 1 &&
    body.allow_hosts === undefined &&
    body.from_snapshot === undefined
  );
}
