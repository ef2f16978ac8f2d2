import { invalidArgument } from '@agent-workspace/core';
import {
  type ActionEventWire,
  CUSTOM_SECURITY_ANALYZER_KIND,
  PATTERN_SECURITY_ANALYZER_KIND,
  type SecurityRisk,
  securityAnalyzerWireSchema,
} from '@agent-workspace/protocol';
import { PatternSecurityAnalyzer } from './pattern-security-analyzer.js';

/** What an analyzer knows besides the action. */
export interface SecurityAnalysisContext {
  /** The workspace's working directory (relative paths resolve against it). */
  workingDir: string;
}

/**
 * Rates the risk of an action before it runs (OpenHands' `SecurityAnalyzerBase.security_risk`).
 * An analyzer that throws or answers something else than a `SecurityRisk` rates the action
 * `HIGH` (as OpenHands does on analysis errors).
 */
export interface SecurityAnalyzer {
  /** The kind shown in the conversation's state (`PatternSecurityAnalyzer`, yours…). */
  readonly kind: string;
  securityRisk(
    action: ActionEventWire,
    context: SecurityAnalysisContext,
  ): SecurityRisk | Promise<SecurityRisk>;
}

/** A security analyzer as a function: the hook for your own rating. */
export type SecurityAnalyzerFunction = (
  action: ActionEventWire,
  context: SecurityAnalysisContext,
) => SecurityRisk | Promise<SecurityRisk>;

/**
 * What a conversation's `securityAnalyzer` may be: an analyzer object, a function, the wire form
 * `{ kind: 'PatternSecurityAnalyzer' }`, or `null` (none: actions are rated `UNKNOWN`).
 */
export type SecurityAnalyzerOption =
  | SecurityAnalyzer
  | SecurityAnalyzerFunction
  | { kind: string }
  | null;

/**
 * The analyzer of an option: objects with `securityRisk` and functions are used as they are,
 * `{ kind: 'PatternSecurityAnalyzer' }` makes a {@link PatternSecurityAnalyzer}.
 * @throws WorkspaceError `INVALID_ARGUMENT` naming `field` for anything else (another wire kind
 * names the supported one).
 */
export function resolveSecurityAnalyzer(
  option: SecurityAnalyzerOption | undefined,
  field = 'securityAnalyzer',
): SecurityAnalyzer | null {
  if (option === undefined || option === null) return null;
  if (typeof option === 'function') {
    return { kind: CUSTOM_SECURITY_ANALYZER_KIND, securityRisk: option };
  }
  if (
    typeof option === 'object' &&
    typeof (option as SecurityAnalyzer).securityRisk === 'function'
  ) {
    return option as SecurityAnalyzer;
  }
  const parsed = securityAnalyzerWireSchema.safeParse(option);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.length > 0 ? `.${issue.path.join('.')}` : '';
    throw invalidArgument(`${field}${at}`, issue.message);
  }
  return new PatternSecurityAnalyzer();
}

/**
 * The JSON a conversation records for its analyzer: `{ kind }`, `null` for none. An analyzer given
 * in code records its kind only (it cannot be rebuilt from JSON: pass it again to `open()`).
 */
export function securityAnalyzerConfigOf(
  analyzer: SecurityAnalyzer | null,
): { kind: string } | null {
  return analyzer === null ? null : { kind: analyzer.kind };
}

/** True when `config` (as recorded) can be rebuilt without code. */
export function isRebuildableAnalyzer(config: { kind: string } | null): boolean {
  return config === null || config.kind === PATTERN_SECURITY_ANALYZER_KIND;
}
