import type { ActionEventWire, SecurityRisk } from '@agent-workspace/protocol';

/** Longest argument summary shown for one pending action (characters). */
export const MAX_ARGUMENTS_CHARS = 400;

const RISKS: readonly string[] = ['LOW', 'MEDIUM', 'HIGH', 'UNKNOWN'];

/** The risk the security analyzer gave `event`; `UNKNOWN` when it gave none. */
export function riskOf(event: ActionEventWire): SecurityRisk {
  const risk = event.security_risk;
  return risk !== undefined && RISKS.includes(risk) ? risk : 'UNKNOWN';
}

/**
 * The arguments of a pending action in one line: the action's fields but `kind`, as
 * `name: JSON` pairs (the raw call arguments when there is no action), cut at
 * {@link MAX_ARGUMENTS_CHARS}.
 */
export function actionArguments(event: ActionEventWire): string {
  let text: string;
  if (event.action) {
    text = Object.entries(event.action)
      .filter(([name, value]) => name !== 'kind' && value !== null && value !== undefined)
      .map(([name, value]) => `${name}: ${JSON.stringify(value)}`)
      .join(', ');
  } else {
    text = event.tool_call.arguments;
  }
  return text.length > MAX_ARGUMENTS_CHARS ? `${text.slice(0, MAX_ARGUMENTS_CHARS - 1)}…` : text;
}
