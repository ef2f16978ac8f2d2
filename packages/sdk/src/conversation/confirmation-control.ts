import { WorkspaceError } from '@agent-workspace/core';
import {
  type ActionEventWire,
  type ConversationEventWire,
  type ConversationExecutionStatus,
  confirmationPolicyWireSchema,
  DEFAULT_REJECTION_REASON,
  MAX_REJECTION_REASON_CHARS,
  type SecurityRisk,
  securityRiskSchema,
  type UserRejectObservationWire,
} from '@agent-workspace/protocol';
import type { ActionReviewer } from '../agent/action-review.js';
import type { AgentStepContext, AgentStepResult } from '../agent/agent.js';
import { executePlannedCalls } from '../agent/execute-planned-calls.js';
import { agentError, replanAction } from '../agent/plan-call.js';
import { newEventBase } from '../events/new-event-base.js';
import {
  type ConfirmationPolicy,
  type ConfirmationPolicyInput,
  NEVER_CONFIRM,
  parseConfirmationPolicy,
  shouldConfirm,
} from '../security/confirmation-policy.js';
import {
  isRebuildableAnalyzer,
  resolveSecurityAnalyzer,
  type SecurityAnalyzer,
  type SecurityAnalyzerOption,
  securityAnalyzerConfigOf,
} from '../security/security-analyzer.js';

/** A response to the actions waiting for confirmation. */
export interface ConfirmationResponse {
  /** True: the actions run; false: they never run, each is answered with a rejection. */
  accept: boolean;
  /**
   * Why they were rejected, told to the model (`Action rejected: <reason>`); default
   * `User rejected the action.`; at most `MAX_REJECTION_REASON_CHARS` (4096) characters.
   */
  reason?: string | undefined;
  /**
   * With `accept`: run at once (default; resolves when the run ends) or only record the
   * acceptance (the next `run()` runs the actions first).
   */
  run?: boolean | undefined;
  /** Pauses the run an acceptance starts. */
  signal?: AbortSignal | undefined;
}

/** A conversation's confirmation settings, as it reports them. */
export interface ConfirmationSettings {
  readonly policy: ConfirmationPolicy;
  /** `{ kind }` of the analyzer rating the actions; `null` for none (every action `UNKNOWN`). */
  readonly securityAnalyzer: { kind: string } | null;
}

/** What a conversation's state file holds of confirmation mode. */
export interface PersistedConfirmation {
  confirmation_policy: ConfirmationPolicy;
  security_analyzer: { kind: string } | null;
}

/** Tools whose lone action never waits (OpenHands: a single `finish` or `think`). */
const NEVER_HELD_ALONE = new Set(['finish', 'think']);

/**
 * Confirmation mode of one conversation: the policy, the security analyzer, the reviewer that
 * rates each step's actions and holds them when the policy says so, and the user's answer to held
 * actions. The held actions are the unanswered actions of the last model response while the
 * status is `waiting_for_confirmation` — read from the events, so they survive a restart and stay
 * held (an acceptance is not persisted: after a restart the user answers again).
 */
export class ConfirmationControl {
  #policy: ConfirmationPolicy;
  #analyzer: SecurityAnalyzer | null;
  #accepted: ActionEventWire[] = [];

  private constructor(policy: ConfirmationPolicy, analyzer: SecurityAnalyzer | null) {
    this.#policy = policy;
    this.#analyzer = analyzer;
  }

  /**
   * The control of a conversation: from its options, else from its state file (`open`).
   * @throws WorkspaceError `INVALID_ARGUMENT` for a bad policy or analyzer, or when the state
   * records an analyzer given in code and none is given again.
   */
  static of(
    options: {
      confirmationPolicy?: ConfirmationPolicyInput | undefined;
      securityAnalyzer?: SecurityAnalyzerOption | undefined;
    },
    state?: Record<string, unknown>,
  ): ConfirmationControl {
    const policy =
      options.confirmationPolicy !== undefined
        ? parseConfirmationPolicy(options.confirmationPolicy)
        : state?.confirmation_policy !== undefined
          ? parseConfirmationPolicy(state.confirmation_policy, 'state.confirmation_policy')
          : NEVER_CONFIRM;
    if (options.securityAnalyzer !== undefined) {
      return new ConfirmationControl(policy, resolveSecurityAnalyzer(options.securityAnalyzer));
    }
    const recorded = (state?.security_analyzer ?? null) as { kind: string } | null;
    if (!isRebuildableAnalyzer(recorded)) {
      throw new WorkspaceError({
        code: 'INVALID_ARGUMENT',
        message: `securityAnalyzer: the conversation was rated by an analyzer given in code (${recorded?.kind}); pass it again (or null for none)`,
        details: { field: 'securityAnalyzer' },
      });
    }
    return new ConfirmationControl(policy, resolveSecurityAnalyzer(recorded));
  }

  /** As {@link ConfirmationControl.of} for `open()`: calls `close` (the history) before throwing. */
  static async ofOpened(
    options: Parameters<typeof ConfirmationControl.of>[0],
    state: Record<string, unknown>,
    close: () => Promise<void>,
  ): Promise<ConfirmationControl> {
    try {
      return ConfirmationControl.of(options, state);
    } catch (error) {
      await close();
      throw error;
    }
  }

  /** The policy and the analyzer's kind. */
  get settings(): ConfirmationSettings {
    return { policy: this.#policy, securityAnalyzer: securityAnalyzerConfigOf(this.#analyzer) };
  }

  /** What the state file records. */
  persisted(): PersistedConfirmation {
    return {
      confirmation_policy: this.#policy,
      security_analyzer: securityAnalyzerConfigOf(this.#analyzer),
    };
  }

  /** The options giving a new conversation (a fork) this policy and this analyzer. */
  get options(): {
    confirmationPolicy: ConfirmationPolicy;
    securityAnalyzer: SecurityAnalyzer | null;
  } {
    return { confirmationPolicy: this.#policy, securityAnalyzer: this.#analyzer };
  }

  /** Replaces the policy. @throws WorkspaceError `INVALID_ARGUMENT` naming the bad part. */
  setPolicy(policy: ConfirmationPolicyInput): void {
    this.#policy = parseConfirmationPolicy(policy, 'policy');
  }

  /** Replaces the analyzer (`null`: none). @throws WorkspaceError `INVALID_ARGUMENT`. */
  setAnalyzer(analyzer: SecurityAnalyzerOption): void {
    this.#analyzer = resolveSecurityAnalyzer(analyzer, 'securityAnalyzer');
  }

  /** True when actions were accepted and wait for the next run. */
  get hasAccepted(): boolean {
    return this.#accepted.length > 0;
  }

  /**
   * The reviewer of a step's actions: each gets its `security_risk` (the analyzer's, `UNKNOWN`
   * without one or for a lone `finish`/`think`), and they are held when the policy asks
   * confirmation for any of them (a lone `finish` or `think` never waits).
   */
  reviewer(workingDir: string): ActionReviewer {
    return async (actions) => {
      const lone = actions.length === 1 && NEVER_HELD_ALONE.has(actions[0]!.tool_name);
      const risks = lone
        ? ['UNKNOWN' as const]
        : await Promise.all(actions.map((action) => this.#rate(action, workingDir)));
      const rated = actions.map((action, index) => ({ ...action, security_risk: risks[index]! }));
      const hold = !lone && risks.some((risk) => shouldConfirm(this.#policy, risk));
      return { actions: rated, hold };
    };
  }

  /**
   * Records the user's answer to the held actions. Accepting keeps them for the next run
   * (`takeAccepted`); rejecting gives the `UserRejectObservation` of each, to record.
   * @throws WorkspaceError `NOT_FOUND` when nothing waits for confirmation,
   * `INVALID_ARGUMENT` (field `reason`) for a reason that is not a string or is too long.
   */
  respond(
    response: ConfirmationResponse,
    status: ConversationExecutionStatus,
    events: readonly ConversationEventWire[],
  ): UserRejectObservationWire[] {
    const reason = response.reason ?? DEFAULT_REJECTION_REASON;
    if (typeof reason !== 'string' || reason.length > MAX_REJECTION_REASON_CHARS) {
      throw new WorkspaceError({
        code: 'INVALID_ARGUMENT',
        message: `reason: must be a string of at most ${MAX_REJECTION_REASON_CHARS} characters`,
        details: { field: 'reason' },
      });
    }
    const held = heldActions(status, events);
    if (held.length === 0 || this.hasAccepted) {
      throw new WorkspaceError({
        code: 'NOT_FOUND',
        message: 'no actions are waiting for confirmation',
        details: { field: 'accept', status },
      });
    }
    if (response.accept) {
      this.#accepted = held;
      return [];
    }
    return held.map((action) => ({
      kind: 'UserRejectObservation',
      ...newEventBase(),
      source: 'environment',
      action_id: action.id,
      tool_name: action.tool_name,
      tool_call_id: action.tool_call_id,
      rejection_reason: reason,
      rejection_source: 'user',
    }));
  }

  /**
   * Runs the accepted actions, if any (as the end of an agent step: observations, errors), and
   * forgets them. `undefined` when there were none.
   */
  async runAccepted(context: AgentStepContext): Promise<AgentStepResult | undefined> {
    const accepted = this.#accepted;
    this.#accepted = [];
    if (accepted.length === 0) return undefined;
    const byName = new Map(context.tools.map((tool) => [tool.name, tool]));
    const planned = accepted.map((action) => replanAction(action, byName));
    for (const plan of planned) {
      if (plan.refusal !== undefined) context.emit(agentError(plan.action, plan.refusal));
    }
    return executePlannedCalls(context, planned);
  }

  async #rate(action: ActionEventWire, workingDir: string): Promise<SecurityRisk> {
    if (this.#analyzer === null) return 'UNKNOWN';
    try {
      const risk = await this.#analyzer.securityRisk(action, { workingDir });
      return securityRiskSchema.safeParse(risk).success ? risk : 'HIGH';
    } catch {
      return 'HIGH'; // OpenHands rates an action HIGH when its analysis fails
    }
  }
}

/**
 * The confirmation settings a state file records (`NeverConfirm` and no analyzer when it records
 * none, or something unreadable), without building the analyzer.
 */
export function persistedConfirmationSettings(
  state: Record<string, unknown>,
): ConfirmationSettings {
  const policy = confirmationPolicyWireSchema.safeParse(state.confirmation_policy);
  const analyzer = state.security_analyzer as { kind?: unknown } | null | undefined;
  return {
    policy: policy.success ? policy.data : NEVER_CONFIRM,
    securityAnalyzer: typeof analyzer?.kind === 'string' ? { kind: analyzer.kind } : null,
  };
}

/**
 * The actions waiting for confirmation: while the status is `waiting_for_confirmation`, the
 * actions of the last model response that no observation, error or rejection answers.
 */
export function heldActions(
  status: ConversationExecutionStatus,
  events: readonly ConversationEventWire[],
): ActionEventWire[] {
  if (status !== 'waiting_for_confirmation') return [];
  const answered = new Set<string>();
  const held: ActionEventWire[] = [];
  let responseId: string | undefined;
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index]!;
    // A response's actions are recorded together (with the refusals of its invalid calls):
    // anything else before them ends the group, even when a model repeats its response ids.
    if (
      responseId !== undefined &&
      event.kind !== 'ActionEvent' &&
      event.kind !== 'AgentErrorEvent'
    ) {
      break;
    }
    if (
      event.kind === 'ObservationEvent' ||
      event.kind === 'AgentErrorEvent' ||
      event.kind === 'UserRejectObservation'
    ) {
      answered.add(event.tool_call_id);
    } else if (event.kind === 'ActionEvent') {
      if (responseId !== undefined && event.llm_response_id !== responseId) break;
      responseId = event.llm_response_id;
      if (event.action !== null && !answered.has(event.tool_call_id)) held.unshift(event);
    }
  }
  return held;
}
