/**
 * Test helpers of `@agent-workspace/sdk`, for tests of code that calls a model: a real loopback
 * HTTP server standing in for an OpenAI-compatible provider (a test double, never a model).
 */
export {
  type DoubleReply,
  type DoubleToolCall,
  type DoubleUsage,
  OpenAICompatibleDouble,
  type OpenAICompatibleDoubleOptions,
  type RecordedRequest,
} from './openai-compatible-double.js';
