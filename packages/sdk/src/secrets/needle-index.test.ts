import { describe, expect, it } from 'vitest';
import { NeedleIndex } from './needle-index.js';

function find(needles: string[], text: string): [number, number][] {
  const found: [number, number][] = [];
  new NeedleIndex(needles).find(text, (start, end) => found.push([start, end]));
  return found.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

describe('NeedleIndex', () => {
  it('finds every occurrence, overlapping ones and needles inside needles included', () => {
    expect(find(['aa'], 'aaaa')).toEqual([
      [0, 2],
      [1, 3],
      [2, 4],
    ]);
    expect(find(['he', 'she', 'his', 'hers'], 'ushers')).toEqual([
      [1, 4],
      [2, 4],
      [2, 6],
    ]);
    expect(find(['abc'], 'xxabxabcx')).toEqual([[5, 8]]);
    expect(find(['abc', ''], '')).toEqual([]);
  });

  it('handles code units beyond ASCII', () => {
    expect(find(['é😀'], 'aé😀b')).toEqual([[1, 4]]);
  });
});
