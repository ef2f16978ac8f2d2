import { describe, expect, it } from 'vitest';
import { MAX_MODEL_TEXT_CHARS, truncateForModel } from './truncate-for-model.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('truncateForModel', () => {
  it('returns text within the limit unchanged', () => {
    const text = 'x'.repeat(MAX_MODEL_TEXT_CHARS);
    expect(truncateForModel(text)).toBe(text);
  });

  it('keeps the head and the tail around a marker that counts what was left out', () => {
    const text = `HEAD${'-'.repeat(100_000)}TAIL`;
    const result = truncateForModel(text);
    expect(result.length).toBeLessThanOrEqual(MAX_MODEL_TEXT_CHARS);
    expect(result.startsWith('HEAD')).toBe(true);
    expect(result.endsWith('TAIL')).toBe(true);
    const match = result.match(/\n<response clipped: (\d+) characters omitted\.>\n/);
    expect(match).not.toBeNull();
    expect(result.length - match![0].length + Number(match![1])).toBe(text.length);
  });

  it('honours maxChars and adds the hint to the marker', () => {
    const result = truncateForModel('a'.repeat(500), { maxChars: 200, hint: 'Use view_range.' });
    expect(result.length).toBeLessThanOrEqual(200);
    expect(result).toMatch(/<response clipped: \d+ characters omitted\. Use view_range\.>/);
  });

  it('never splits a surrogate pair', () => {
    // Odd and even budgets put the cut on either half of a pair.
    for (const maxChars of [200, 201, 202, 203]) {
      const result = truncateForModel('🎉'.repeat(1000), { maxChars });
      expect(result).not.toMatch(LONE_SURROGATE);
      expect(result.startsWith('🎉')).toBe(true);
      expect(result.endsWith('🎉')).toBe(true);
    }
  });
});
