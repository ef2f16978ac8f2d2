import {
  DEFAULT_MAX_DISK_BYTES,
  DEFAULT_MAX_EVENT_BYTES,
  DEFAULT_MAX_MEMORY_BYTES,
  MIN_MAX_EVENT_BYTES,
} from '@agent-workspace/sdk';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CONVERSATION_MAX_DISK_BYTES,
  DEFAULT_CONVERSATION_MAX_EVENT_BYTES,
  DEFAULT_CONVERSATION_MAX_MEMORY_BYTES,
  MIN_CONVERSATION_MAX_EVENT_BYTES,
} from './conversation-service-options.js';

describe('conversation history defaults', () => {
  // The server keeps its own copy so that its options do not load the SDK at start-up.
  it('are the SDK’s', () => {
    expect([
      DEFAULT_CONVERSATION_MAX_EVENT_BYTES,
      DEFAULT_CONVERSATION_MAX_MEMORY_BYTES,
      DEFAULT_CONVERSATION_MAX_DISK_BYTES,
      MIN_CONVERSATION_MAX_EVENT_BYTES,
    ]).toEqual([
      DEFAULT_MAX_EVENT_BYTES,
      DEFAULT_MAX_MEMORY_BYTES,
      DEFAULT_MAX_DISK_BYTES,
      MIN_MAX_EVENT_BYTES,
    ]);
  });
});
