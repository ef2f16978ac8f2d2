import type { CompletionRequest, LanguageModel } from '../../llm/language-model.js';

/**
 * A model that passes every call on to `inner` and keeps the requests; its JSON form is the
 * inner model's (test helper).
 */
export function recordingModel<Model extends LanguageModel & { toConfig(): object }>(
  inner: Model,
): LanguageModel & { requests: CompletionRequest[]; toConfig(): object } {
  const requests: CompletionRequest[] = [];
  return {
    model: inner.model,
    requests,
    complete(request) {
      requests.push({ ...request, messages: [...request.messages] });
      return inner.complete(request);
    },
    toConfig: () => inner.toConfig(),
  };
}
