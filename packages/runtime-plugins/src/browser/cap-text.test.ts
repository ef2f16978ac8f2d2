import { describe, expect, it } from 'vitest';
import { capText } from './cap-text.js';

describe('capText', () => {
  it('keeps text that fits', () => {
    expect(capText('hello', 5)).toBe('hello');
  });

  it('cuts longer text and says how much was left out', () => {
    expect(capText('abcdefghij', 4)).toBe(
      'abcd\n\n[... truncated: showing the first 4 of 10 characters]',
    );
  });
});
