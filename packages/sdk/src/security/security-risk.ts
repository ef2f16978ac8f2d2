import type { SecurityRisk } from '@agent-workspace/protocol';

const ORDER: Record<Exclude<SecurityRisk, 'UNKNOWN'>, number> = { LOW: 1, MEDIUM: 2, HIGH: 3 };

/**
 * Whether `risk` is at least as risky as `other` (OpenHands' reflexive `is_riskier`). `UNKNOWN`
 * is comparable with nothing: asking about it is a bug.
 * @throws RangeError when either is `UNKNOWN`.
 */
export function isAtLeastAsRisky(risk: SecurityRisk, other: SecurityRisk): boolean {
  if (risk === 'UNKNOWN' || other === 'UNKNOWN') {
    throw new RangeError('UNKNOWN risk levels cannot be compared');
  }
  return ORDER[risk] >= ORDER[other];
}

/** The highest of known risk levels (`LOW` for none). */
export function highestRisk(risks: Iterable<Exclude<SecurityRisk, 'UNKNOWN'>>): SecurityRisk {
  let highest: Exclude<SecurityRisk, 'UNKNOWN'> = 'LOW';
  for (const risk of risks) if (ORDER[risk] > ORDER[highest]) highest = risk;
  return highest;
}
