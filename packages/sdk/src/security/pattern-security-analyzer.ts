import type { ActionEventWire, SecurityRisk } from '@agent-workspace/protocol';
import { PATTERN_SECURITY_ANALYZER_KIND } from '@agent-workspace/protocol';
import type { ActionFacts, RuleFinding } from './pattern-rule-table.js';
import { applyPatternRules } from './pattern-rules.js';
import type { SecurityAnalysisContext, SecurityAnalyzer } from './security-analyzer.js';
import { highestRisk } from './security-risk.js';
import { shellOfPython } from './shell-words.js';

/**
 * Most characters of an action's arguments the pattern analyzer reads; an action with more is
 * rated `HIGH` unread (too long to vouch for), so `ConfirmRisky` always stops it.
 */
export const MAX_ANALYZED_CHARS = 65_536;

/** Tools whose actions the pattern analyzer knows; others are rated `UNKNOWN`. */
const KNOWN_TOOLS = new Set([
  'terminal',
  'file_editor',
  'execute_ipython_cell',
  'task_tracker',
  'finish',
  'think',
  'browser',
]);

/** What {@link PatternSecurityAnalyzer.analyze} found. */
export interface PatternAnalysis {
  risk: SecurityRisk;
  /** The rules that matched (empty for `LOW` and `UNKNOWN`). */
  findings: RuleFinding[];
}

/**
 * A security analyzer with fixed, documented rules (`PATTERN_RULES`): destructive commands, disk
 * overwrites, git history rewrites, permissions opened, system control, writes outside the
 * working directory, credential files, fetch-and-execute, network fetches, privilege escalation.
 * It reads terminal commands (and the `bash -c`, `eval`, `python -c`, `node -e` strings in them),
 * IPython cells (their `!` lines and `os.system` / `subprocess` strings) and the file editor's
 * paths. An action's risk is the highest finding's, `LOW` without one; an action of a tool it does
 * not know is `UNKNOWN`. Patterns are heuristics: they catch the usual forms, not a determined
 * adversary (quote the command differently and it may pass) — confirmation mode is the guard.
 */
export class PatternSecurityAnalyzer implements SecurityAnalyzer {
  /** The wire kind (`PatternSecurityAnalyzer`). */
  readonly kind = PATTERN_SECURITY_ANALYZER_KIND;

  /** The risk of `action`. */
  securityRisk(action: ActionEventWire, context: SecurityAnalysisContext): SecurityRisk {
    return this.analyze(action, context).risk;
  }

  /** The risk of `action` with the rules that gave it. */
  analyze(action: ActionEventWire, context: SecurityAnalysisContext): PatternAnalysis {
    if (action.action === null || !KNOWN_TOOLS.has(action.tool_name)) {
      return { risk: 'UNKNOWN', findings: [] };
    }
    if (action.tool_call.arguments.length > MAX_ANALYZED_CHARS) {
      return { risk: 'HIGH', findings: [] };
    }
    const findings = applyPatternRules(factsOf(action, context.workingDir));
    return { risk: highestRisk(findings.map((finding) => finding.risk)), findings };
  }

  /** The wire form, `{ kind: 'PatternSecurityAnalyzer' }`. */
  toConfig(): { kind: string } {
    return { kind: this.kind };
  }
}

/** What the rules read of an action. */
function factsOf(action: ActionEventWire, workingDir: string): ActionFacts {
  const facts: ActionFacts = { shell: [], code: [], writes: [], reads: [], workingDir };
  const args: Record<string, unknown> = action.action ?? {};
  const text = (key: string): string | undefined =>
    typeof args[key] === 'string' ? (args[key] as string) : undefined;
  switch (action.tool_name) {
    case 'terminal': {
      const command = text('command');
      if (command !== undefined && args.is_input !== true) facts.shell.push(command);
      break;
    }
    case 'file_editor': {
      const path = text('path');
      if (path !== undefined) (text('command') === 'view' ? facts.reads : facts.writes).push(path);
      break;
    }
    case 'execute_ipython_cell': {
      const code = text('code') ?? '';
      facts.code.push(code);
      facts.shell.push(...shellOfPython(code));
      break;
    }
    default:
      break;
  }
  return facts;
}
