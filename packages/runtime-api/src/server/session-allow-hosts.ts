import { type AllowHost, EgressAllowList } from '@agent-workspace/core/internal';
import type { ContainerSandbox } from '@agent-workspace/docker/engine';
import type { ValidationIssue } from '@agent-workspace/protocol';
import type { RuntimeBackend } from '../backend/runtime-backend.js';
import { allowListProblem } from './allow-list-problem.js';

/** What {@link allowHostsIssues} and {@link sessionSandbox} read of the server's options. */
export interface AllowHostsOptions {
  /** The operator's allow-list (`--allow-host`), if any. */
  allowHosts?: readonly string[] | undefined;
  backend: Pick<RuntimeBackend, 'kind' | 'sandboxes'>;
}

/**
 * What is wrong with a `/start`'s `allow_hosts`, as FastAPI-style issues naming
 * `allow_hosts.<i>`: an entry that does not parse, one the operator's allow-list does not cover
 * (a session narrows it, never widens it), or a backend that cannot sandbox.
 */
export function allowHostsIssues(
  options: AllowHostsOptions,
  requested: readonly string[] | undefined,
): ValidationIssue[] {
  if (requested === undefined) return [];
  if (!options.backend.sandboxes) {
    return [
      issue(
        [],
        requested,
        `the ${options.backend.kind} backend cannot sandbox sessions, so it cannot enforce an allow-list`,
      ),
    ];
  }
  let parsed: EgressAllowList;
  try {
    parsed = EgressAllowList.parse(requested, 'allow_hosts');
  } catch (error) {
    const { index, reason } = allowListProblem(error, 'allow_hosts');
    return [
      issue(
        index === undefined ? [] : [index],
        index === undefined ? requested : requested[index],
        reason,
      ),
    ];
  }
  if (options.allowHosts === undefined) return [];
  const operator = EgressAllowList.parse(options.allowHosts, 'allowHosts');
  return parsed.entries.flatMap((entry, index) =>
    covers(operator, entry)
      ? []
      : [
          issue(
            [index],
            requested[index],
            `${entry.entry} is not covered by this server's allow-list (${operator.entries.map((allowed) => allowed.entry).join(', ')}); a session may narrow it, not widen it`,
          ),
        ],
  );
}

/**
 * The command sandbox of a session's agent-server: the `/start`'s `allow_hosts` (already
 * checked by {@link allowHostsIssues}), else the operator's; none when neither is set.
 */
export function sessionSandbox(
  options: AllowHostsOptions,
  requested: readonly string[] | undefined,
): ContainerSandbox | undefined {
  const allowHosts = requested ?? options.allowHosts;
  return allowHosts === undefined ? undefined : { allowHosts: [...allowHosts] };
}

/** True when every host and port `entry` allows, `operator` allows too. */
function covers(operator: EgressAllowList, entry: AllowHost): boolean {
  if (operator.entries.some((allowed) => allowed.entry === entry.entry)) return true;
  if (entry.kind === 'wildcard') {
    return operator.entries.some(
      (allowed) =>
        allowed.kind === 'wildcard' &&
        (entry.host === allowed.host || entry.host.endsWith(`.${allowed.host}`)) &&
        entry.ports.every((port) => allowed.ports.includes(port)),
    );
  }
  const target =
    entry.kind === 'name'
      ? { kind: 'name' as const, name: entry.host }
      : {
          kind: 'address' as const,
          address: entry.host,
          family: entry.host.includes(':') ? (6 as const) : (4 as const),
        };
  return entry.ports.every((port) => operator.allows(target, port));
}

function issue(at: number[], input: unknown, message: string): ValidationIssue {
  return {
    type: 'value_error',
    loc: ['body', 'allow_hosts', ...at],
    msg: `Value error, ${message}`,
    input,
  };
}
