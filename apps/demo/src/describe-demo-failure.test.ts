import { LLMError } from '@agent-workspace/sdk';
import { describe, expect, it } from 'vitest';
import { describeDemoFailure, describeRetry } from './describe-demo-failure.js';

const modelUrl = 'http://127.0.0.1:4000/v1';
const runError = (code: string, detail: string) =>
  describeDemoFailure({ kind: 'run-error', code, detail }, { modelUrl });

describe('describeDemoFailure', () => {
  it('names the status, reason, URL and the provider words of an HTTP failure', () => {
    expect(
      runError(
        'LLM_SERVER_ERROR',
        'LLM openai/m: the provider failed (503): overloaded (after 3 attempts)',
      ),
    ).toBe(
      `model request failed: 503 Service Unavailable from ${modelUrl} (3 attempts): overloaded`,
    );
  });

  it('names a timeout, a failure without status and a stop that is not the model', () => {
    expect(runError('LLM_TIMEOUT', 'LLM openai/m: no answer within 5 ms (after 2 attempts)')).toBe(
      `model request timed out: no answer within 5 ms from ${modelUrl} (2 attempts)`,
    );
    expect(runError('LLM_AUTHENTICATION', 'LLM anthropic/m: no API key: set apiKey')).toBe(
      'model request failed: no API key: set apiKey',
    );
    expect(runError('MaxIterationsReached', 'Agent reached maximum iterations limit (5).')).toBe(
      'the run ended with MaxIterationsReached: Agent reached maximum iterations limit (5).',
    );
  });

  it('keeps the network reason when it has no errno code', () => {
    expect(runError('LLM_CONNECTION', 'LLM openai/m: cannot reach the provider: bad port')).toBe(
      `cannot reach ${modelUrl}: bad port`,
    );
  });
});

describe('describeRetry', () => {
  it('says which attempt failed, why, and how long it waits', () => {
    const error = new LLMError({
      code: 'LLM_RATE_LIMITED',
      message: 'LLM openai/m: rate limited by the provider (429): slow down',
    });
    expect(describeRetry({ retry: 2, delayMs: 2500, error }, 4)).toBe(
      'model request failed (attempt 2/5: 429 Too Many Requests), retrying in 2.5 s…',
    );
  });
});
