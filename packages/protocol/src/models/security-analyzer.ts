import { z } from 'zod';

/** The kind of this project's pattern-based security analyzer (OpenHands' name for one). */
export const PATTERN_SECURITY_ANALYZER_KIND = 'PatternSecurityAnalyzer';

/** The kind a conversation's state and info show for an analyzer given in code (SDK only). */
export const CUSTOM_SECURITY_ANALYZER_KIND = 'CustomSecurityAnalyzer';

/**
 * OpenHands analyzer kinds this server knows of but does not offer. `LLMSecurityAnalyzer` trusts
 * a `security_risk` argument the model adds to each tool call; our tools' schemas do not carry
 * that argument, so the analyzer would rate everything `UNKNOWN`: it is refused rather than
 * silently weaker than asked.
 */
export const UNSUPPORTED_SECURITY_ANALYZER_KINDS = [
  'LLMSecurityAnalyzer',
  'GraySwanAnalyzer',
  'EnsembleSecurityAnalyzer',
  'PolicyRailSecurityAnalyzer',
  'ToolShieldLLMSecurityAnalyzer',
] as const;

/** Why `kind` is not a security analyzer this project offers, or `undefined` when it is. */
function analyzerKindProblem(kind: string): string | undefined {
  if (kind === PATTERN_SECURITY_ANALYZER_KIND) return undefined;
  const known = (UNSUPPORTED_SECURITY_ANALYZER_KINDS as readonly string[]).includes(kind);
  return `${known ? 'not supported' : 'unknown'} security analyzer kind ${JSON.stringify(kind)}; supported: ${PATTERN_SECURITY_ANALYZER_KIND} (or null for none)`;
}

/**
 * Wire shape of a security analyzer a client may select: `{"kind":"PatternSecurityAnalyzer"}`
 * (fixed rules, see the SDK's `PatternSecurityAnalyzer`). Another kind is refused with a message
 * naming it (OpenHands' kinds this server does not offer as "not supported"); OpenHands' custom
 * pattern lists (`high_patterns`, ...) are refused too (client-supplied regular expressions are
 * not run on the server).
 */
export const securityAnalyzerWireSchema = z.strictObject(
  {
    kind: z
      .string()
      .max(200)
      .superRefine((kind, context) => {
        const problem = analyzerKindProblem(kind);
        if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
      }),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `${issue.keys.join(', ')}: not supported; the pattern analyzer's rules are fixed`
        : undefined,
  },
);

/** Wire JSON of a selectable security analyzer. */
export type SecurityAnalyzerWire = z.infer<typeof securityAnalyzerWireSchema>;

/**
 * Wire shape of `POST /api/conversations/{id}/security_analyzer` (OpenHands'
 * `SetSecurityAnalyzerRequest`): `security_analyzer` is required; `null` removes the analyzer
 * (actions are then rated `UNKNOWN`).
 */
export const setSecurityAnalyzerRequestWireSchema = z.object({
  security_analyzer: securityAnalyzerWireSchema.nullable(),
});

/** Wire JSON of a set-security-analyzer request. */
export type SetSecurityAnalyzerRequestWire = z.infer<typeof setSecurityAnalyzerRequestWireSchema>;
