import type { WorkspaceErrorCode } from '@agent-workspace/protocol';

const marker = 'agent-workspace.error';
const markerSymbol = Symbol.for(marker);

/**
 * Stable error codes. Branch on `error.code`, never on the message. The codes and what each
 * means are defined once, with the wire, in `@agent-workspace/protocol`.
 */
export type { WorkspaceErrorCode };

/** Options for {@link WorkspaceError}. */
export interface WorkspaceErrorOptions {
  code: WorkspaceErrorCode;
  message: string;
  cause?: unknown;
  /** Extra structured facts (field name, status code, path, ...). */
  details?: Record<string, unknown> | undefined;
}

/**
 * The one error class of agent-workspace. Every failure that is not a command's own exit status
 * is a `WorkspaceError` with a stable {@link WorkspaceErrorCode}.
 *
 * Use {@link WorkspaceError.isInstance} rather than `instanceof`: it also recognises errors thrown
 * by another installed copy of the package.
 */
export class WorkspaceError extends Error {
  readonly [markerSymbol] = true;
  /** Stable machine-readable code. */
  readonly code: WorkspaceErrorCode;
  /** Extra structured facts about the failure. */
  readonly details: Record<string, unknown>;

  constructor({ code, message, cause, details }: WorkspaceErrorOptions) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'WorkspaceError';
    this.code = code;
    this.details = details ?? {};
  }

  /** True when `error` is a `WorkspaceError` from any copy of this package; optionally of `code`. */
  static isInstance(error: unknown, code?: WorkspaceErrorCode): error is WorkspaceError {
    if (typeof error !== 'object' || error === null) return false;
    if ((error as Record<symbol, unknown>)[markerSymbol] !== true) return false;
    return code === undefined || (error as WorkspaceError).code === code;
  }
}
