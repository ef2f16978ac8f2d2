import { STATUS_CODES } from 'node:http';
import type { LLMRetryEvent } from '@agent-workspace/sdk';
import type { DemoFailure } from './find-demo-failure.js';

/** What {@link describeDemoFailure} names besides the failure. */
export interface DescribeDemoFailureOptions {
  /** Where the model is called, e.g. `http://127.0.0.1:4000/v1`, or the provider's name. */
  modelUrl: string;
}

// `LLM <model>: <summary>`, the prefix of every LLMError message.
const LLM_PREFIX = /^LLM \S+: /;
const ATTEMPTS = / \(after (\d+) attempts\)$/;

/**
 * One line naming why the demo did not do its task: the model's HTTP status and URL, the
 * network error behind an unreachable model, a text-only answer, an unknown tool, ...
 */
export function describeDemoFailure(
  failure: DemoFailure,
  { modelUrl }: DescribeDemoFailureOptions,
): string {
  switch (failure.kind) {
    case 'run-error':
      return describeRunError(failure.code, failure.detail, modelUrl);
    case 'run-ended':
      return failure.status === 'paused'
        ? 'the run was interrupted'
        : `the run ended with status ${failure.status}`;
    case 'unknown-tool':
      return `the model called an unknown tool ${JSON.stringify(failure.tool)}`;
    case 'text-only': {
      const text = oneLine(failure.text);
      return `the model answered text without a tool call${text ? `: ${JSON.stringify(text)}` : ''}`;
    }
    case 'no-stats':
      return 'the agent finished without writing stats.js';
    case 'test-fails':
      return 'the agent finished, but node stats.test.js still fails';
  }
}

/** One line per retry of a model call: `model unreachable (attempt 1/3 failed: ECONNREFUSED), retrying in 1 s…`. */
export function describeRetry(event: LLMRetryEvent, maxRetries: number): string {
  const summary = event.error.message.replace(LLM_PREFIX, '');
  const what =
    event.error.code === 'LLM_CONNECTION'
      ? `model unreachable (attempt ${event.retry}/${maxRetries + 1} failed: ${networkReason(summary)})`
      : `model request failed (attempt ${event.retry}/${maxRetries + 1}: ${statusOf(summary) ?? event.error.code})`;
  return `${what}, retrying in ${formatDelay(event.delayMs)}…`;
}

function describeRunError(code: string, detail: string, modelUrl: string): string {
  const attempts = ATTEMPTS.exec(detail)?.[1];
  const summary = detail.replace(LLM_PREFIX, '').replace(ATTEMPTS, '');
  const after = attempts === undefined ? '' : ` (${attempts} attempts)`;
  if (code === 'LLM_CONNECTION')
    return `cannot reach ${modelUrl}: ${networkReason(summary)}${after}`;
  if (code === 'LLM_TIMEOUT') return `model request timed out: ${summary} from ${modelUrl}${after}`;
  if (code.startsWith('LLM_')) {
    const status = statusOf(summary);
    if (status === undefined) return `model request failed: ${summary}`;
    const quote = summary.slice(summary.indexOf('): ') + 3);
    const said = summary.includes('): ') && quote ? `: ${quote}` : '';
    return `model request failed: ${status} from ${modelUrl}${after}${said}`;
  }
  return `the run ended with ${code}: ${oneLine(detail)}`;
}

/** `401 Unauthorized` from a summary quoting `(401)`. */
function statusOf(summary: string): string | undefined {
  const status = /\((\d{3})\)/.exec(summary)?.[1];
  if (status === undefined) return undefined;
  const reason = STATUS_CODES[Number(status)];
  return reason === undefined ? status : `${status} ${reason}`;
}

/** `ECONNREFUSED` from `cannot reach the provider: connect ECONNREFUSED 127.0.0.1:1`. */
function networkReason(summary: string): string {
  const reason = summary.replace(/^cannot reach the provider: /, '');
  return /\b(E[A-Z]{3,})\b/.exec(reason)?.[1] ?? reason;
}

function formatDelay(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 100) / 10} s`;
}

function oneLine(text: string, max = 80): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
