import { describe, expect, it } from 'vitest';
import { conversationIdOfHash } from './use-selected-conversation.js';

describe('conversationIdOfHash', () => {
  it('reads the id of #/conversations/<id> and nothing else', () => {
    expect(conversationIdOfHash('#/conversations/abc-1')).toBe('abc-1');
    expect(conversationIdOfHash('#/conversations/a%2Fb')).toBe('a/b');
    expect(conversationIdOfHash('')).toBeNull();
    expect(conversationIdOfHash('#/conversations/')).toBeNull();
    expect(conversationIdOfHash('#/files/x')).toBeNull();
  });
});
