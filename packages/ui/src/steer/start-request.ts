import { ApiError } from '../api/api-error.js';

/** What the "New conversation" form holds. */
export interface NewConversationFields {
  /** LiteLLM-style `provider/model`, e.g. `openai/gpt-4o-mini`. */
  readonly model: string;
  /** Sent once in the start request, never stored by the page; empty for none. */
  readonly apiKey: string;
  /** An OpenAI-compatible endpoint; empty for the provider's own. */
  readonly baseUrl: string;
  readonly workingDir: string;
  /** Tool spec names (`TerminalTool`, ...). */
  readonly tools: readonly string[];
  /** Every action waits for the user's approval (OpenHands' `AlwaysConfirm`). */
  readonly confirmEveryAction: boolean;
  /** Sent as the initial message, which starts the run; empty for none. */
  readonly firstMessage: string;
}

/** The JSON body of `POST /api/conversations` (OpenHands' `StartConversationRequest`). */
export interface StartConversationBody {
  readonly workspace: { readonly kind: 'LocalWorkspace'; readonly working_dir: string };
  readonly agent: {
    readonly kind: 'Agent';
    readonly llm: {
      readonly kind: 'LLM';
      readonly model: string;
      readonly api_key?: string;
      readonly base_url?: string;
    };
    readonly tools: readonly { readonly name: string }[];
  };
  readonly confirmation_policy: { readonly kind: 'AlwaysConfirm' | 'NeverConfirm' };
  readonly initial_message?: {
    readonly role: 'user';
    readonly content: readonly { readonly type: 'text'; readonly text: string }[];
    readonly run: true;
  };
}

/** The start request of the form's `fields`; empty optional fields are left out. */
export function startConversationBody(fields: NewConversationFields): StartConversationBody {
  const apiKey = fields.apiKey.trim();
  const baseUrl = fields.baseUrl.trim();
  const text = fields.firstMessage.trim();
  return {
    workspace: { kind: 'LocalWorkspace', working_dir: fields.workingDir.trim() },
    agent: {
      kind: 'Agent',
      llm: {
        kind: 'LLM',
        model: fields.model.trim(),
        ...(apiKey ? { api_key: apiKey } : {}),
        ...(baseUrl ? { base_url: baseUrl } : {}),
      },
      tools: fields.tools.map((name) => ({ name })),
    },
    confirmation_policy: { kind: fields.confirmEveryAction ? 'AlwaysConfirm' : 'NeverConfirm' },
    ...(text
      ? { initial_message: { role: 'user', content: [{ type: 'text', text }], run: true } }
      : {}),
  };
}

/** The form field a request body path (`loc` without `body`) belongs to. */
const FIELD_LABELS: readonly (readonly [string, string])[] = [
  ['agent.llm.model', 'Model'],
  ['agent.llm.api_key', 'API key'],
  ['agent.llm.base_url', 'Base URL'],
  ['agent.tools', 'Tools'],
  ['workspace', 'Working directory'],
  ['initial_message', 'First message'],
  ['confirmation_policy', 'Confirm every action'],
];

/** The label of the field at `path` (dotted), or the path itself when no field matches. */
export function fieldLabelOf(path: string): string {
  const match = FIELD_LABELS.find(([prefix]) => path === prefix || path.startsWith(`${prefix}.`));
  return match ? match[1] : path;
}

interface ValidationIssue {
  readonly loc?: unknown;
  readonly msg?: unknown;
}

/** FastAPI-style issues (`[{loc, msg}]`) in an {@link ApiError}'s message, or `null`. */
function issuesOf(message: string): ValidationIssue[] | null {
  const start = message.indexOf(': [');
  if (start < 0) return null;
  try {
    const parsed: unknown = JSON.parse(message.slice(start + 2));
    return Array.isArray(parsed) ? (parsed as ValidationIssue[]) : null;
  } catch {
    return null;
  }
}

/**
 * What to tell the user about a failed start: a 422's issues by form field (`Model: …`), a
 * refusal as such, anything else as it came.
 */
export function describeStartError(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  const issues = error.status === 422 ? issuesOf(error.message) : null;
  if (issues) {
    const described = issues.map((issue) => {
      const loc = Array.isArray(issue.loc) ? issue.loc.map(String) : [];
      const path = (loc[0] === 'body' ? loc.slice(1) : loc).join('.');
      return `${fieldLabelOf(path)}: ${String(issue.msg ?? 'invalid')}`;
    });
    return `The server refused these fields: ${described.join('; ')}`;
  }
  if (error.status !== null && error.status >= 400 && error.status < 500 && !error.unauthorized) {
    return `The server refused to start the conversation. ${error.message}`;
  }
  return error.message;
}
